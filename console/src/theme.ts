import { defaultDarkTheme, defaultLightTheme } from 'react-admin';

// Darker than MUI's blue: a focused field's label on the filled input's grey, and outlined buttons,
// keep a 4.5:1 contrast (WCAG AA; axe-core checks every page in the tests).
const palette = { primary: { main: '#1b5e20' }, secondary: { main: '#bf360c' } };

// Wide enough for the menu's longest French labels ("Associations à vérifier").
const sidebar = { width: 270, closedWidth: 55 };

export const lightTheme = { ...defaultLightTheme, sidebar, palette: { ...defaultLightTheme.palette, ...palette } };
export const darkTheme = { ...defaultDarkTheme, sidebar };
