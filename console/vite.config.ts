import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

// Served by the API under /console: hashed asset names (cached for a year), index.html revalidated.
export default defineConfig({
  root: import.meta.dirname,
  base: '/console/',
  plugins: [react()],
  build: { outDir: 'dist', emptyOutDir: true, chunkSizeWarningLimit: 1500 },
  // `npm run console:dev` proxies the API of `npm run dev`.
  server: { proxy: { '/api': { target: 'http://127.0.0.1:3000', changeOrigin: false } } },
});
