import type { ReactNode } from 'react';
import { AppBar, Layout, LoadingIndicator, LocalesMenuButton, UserMenu, defaultTheme, useGetIdentity, useTranslate } from 'react-admin';

/**
 * react-admin's theme with blues dark enough for text (WCAG AA, 4.5:1): its secondary blue under the
 * app bar's white text gives 3.1:1, its primary blue as text on the page's grey background 4.4:1.
 */
export const theme = {
  ...defaultTheme,
  palette: {
    ...defaultTheme.palette,
    primary: { main: '#1565c0', contrastText: '#fff' },
    secondary: { main: '#0069c0', dark: '#004a8f', light: '#2196f3', contrastText: '#fff' },
  },
};

function ConsoleAppBar() {
  const translate = useTranslate();
  const { identity } = useGetIdentity();
  // The menu button shows the name: its accessible name must contain it.
  const label = identity?.fullName ? `${translate('ra.auth.user_menu')} : ${identity.fullName}` : 'ra.auth.user_menu';
  return (
    <AppBar
      toolbar={
        <>
          <LocalesMenuButton />
          <LoadingIndicator aria-label={translate('ra.page.loading')} />
        </>
      }
      userMenu={<UserMenu label={label} />}
    />
  );
}

export function ConsoleLayout({ children }: { children: ReactNode }) {
  return <Layout appBar={ConsoleAppBar}>{children}</Layout>;
}
