import type { ReactNode } from 'react';
import { AppBar, Layout as RaLayout, UserMenu, useGetIdentity } from 'react-admin';

/** The user menu's accessible name is the name it shows (WCAG 2.5.3, label in name). */
function ConsoleUserMenu() {
  const { identity } = useGetIdentity();
  return <UserMenu label={identity?.fullName ?? 'ra.auth.user_menu'} />;
}

const ConsoleAppBar = () => <AppBar color="primary" userMenu={<ConsoleUserMenu />} />;

export const Layout = ({ children }: { children: ReactNode }) => <RaLayout appBar={ConsoleAppBar}>{children}</RaLayout>;
