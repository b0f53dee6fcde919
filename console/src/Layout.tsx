import type { ReactNode } from 'react';
import {
  AppBar,
  Layout as RaLayout,
  LoadingIndicator,
  LocalesMenuButton,
  ToggleThemeButton,
  UserMenu,
  useGetIdentity,
  useTranslate,
} from 'react-admin';

/** The user menu's accessible name is the name it shows (WCAG 2.5.3, label in name). */
function ConsoleUserMenu() {
  const { identity } = useGetIdentity();
  return <UserMenu label={identity?.fullName ?? 'ra.auth.user_menu'} />;
}

/** react-admin's own toolbar, but its loading indicator (a progress bar while any call runs) is named. */
function ConsoleToolbar() {
  const translate = useTranslate();
  return (
    <>
      <LocalesMenuButton />
      <ToggleThemeButton />
      <LoadingIndicator aria-label={translate('ra.page.loading')} />
    </>
  );
}

const ConsoleAppBar = () => <AppBar color="primary" toolbar={<ConsoleToolbar />} userMenu={<ConsoleUserMenu />} />;

// react-admin's layout is at least as wide as its content (`min-width: fit-content`): a wide table then stretches
// the whole page past a phone's screen instead of scrolling in its own container.
const contentFits = {
  minWidth: 0,
  '& .RaLayout-appFrame, & .RaLayout-contentWithSidebar, & .RaLayout-content': { minWidth: 0 },
};

export const Layout = ({ children }: { children: ReactNode }) => (
  <RaLayout appBar={ConsoleAppBar} sx={contentFits}>
    {children}
  </RaLayout>
);
