import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      'node_modules/',
      'data/',
      'dist/',
      'dist.tmp-*/',
      'console/dist/',
      'console/dist.*/',
      'test-results/',
      'src/db/migrations/',
      'coverage/',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-restricted-properties': [
        'error',
        { object: 'process', property: 'env', message: 'Read configuration through src/config.ts.' },
      ],
    },
  },
  {
    // dependency-cruiser's configuration is CommonJS: the package is an ES module, its loader takes .cjs.
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs', globals: { module: 'writable' } },
  },
  {
    files: ['test/**', 'bench/**', 'scripts/**', '**/*.test.ts', 'vitest.config.ts', 'src/config.ts'],
    rules: { 'no-restricted-properties': 'off' },
  },
);
