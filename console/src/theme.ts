import { defaultDarkTheme, defaultLightTheme, type RaThemeOptions } from 'react-admin';

// Darker than MUI's blue: a focused field's label on the filled input's grey, and outlined buttons,
// keep a 4.5:1 contrast (WCAG AA; axe-core checks every page in the tests).
const palette = { primary: { main: '#1b5e20' }, secondary: { main: '#bf360c' } };

// Wide enough for the menu's longest French labels ("Associations à vérifier").
const sidebar = { width: 270, closedWidth: 55 };

// The always-on search box of every list: wide enough for a shop's name and a city (it was sized to
// its placeholder, so a longer search scrolled and hid its first letters), never wider than a phone.
const components = (base: RaThemeOptions) => ({
  ...base.components,
  RaSearchInput: { styleOverrides: { root: { width: '22rem', maxWidth: '100%' } } },
  // A list as wide as its table (flex items default to their content's width) stretched the page past a
  // phone's screen: the list keeps the screen's width and its table scrolls in its own box.
  RaList: {
    styleOverrides: { root: { '& .RaList-main': { minWidth: 0 }, '& .RaList-content': { overflowX: 'auto' } } },
  },
});

export const lightTheme = {
  ...defaultLightTheme,
  sidebar,
  palette: { ...defaultLightTheme.palette, ...palette },
  components: components(defaultLightTheme),
};
export const darkTheme = { ...defaultDarkTheme, sidebar, components: components(defaultDarkTheme) };
