import { defaultTheme, type RaThemeOptions } from 'react-admin';

// react-admin's default theme with darker blues where text sits on them: white on its app bar
// (#2196f3) and the focused label of a filled field (#1976d2 on #f0f0f0) fall below WCAG AA's 4.5:1.
const BLUE = '#1565c0';

export const theme: RaThemeOptions = {
  ...defaultTheme,
  palette: { ...defaultTheme.palette, primary: { main: BLUE } },
  components: {
    ...defaultTheme.components,
    MuiAppBar: { styleOverrides: { colorSecondary: { backgroundColor: BLUE, color: '#fff' } } },
  },
};
