import type { ReactNode } from 'react';
import { AppBar, Layout as RaLayout, UserMenu, useGetIdentity } from 'react-admin';

// The user menu's button shows the user's name: its accessible name says the same (WCAG 2.5.3),
// where react-admin's default would be "Profil".
function NamedUserMenu() {
  const { identity } = useGetIdentity();
  return <UserMenu label={identity?.fullName ?? 'ra.auth.user_menu'} />;
}

const NamedAppBar = () => <AppBar userMenu={<NamedUserMenu />} />;

export function Layout({ children }: { children: ReactNode }) {
  return <RaLayout appBar={NamedAppBar}>{children}</RaLayout>;
}
