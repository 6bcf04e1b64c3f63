// ESLint: the recommended rules of JavaScript and typescript-eslint, nothing stylistic (Prettier
// formats; eslint-config-prettier turns off what would fight it). `npm run lint` runs it with
// dependency-cruiser (.dependency-cruiser.cjs) and Prettier's check.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import prettier from 'eslint-config-prettier';
import globals from 'globals';

export default tseslint.config(
  { ignores: ['dist/**', 'web/dist/**', 'node_modules/**', 'openapi/types.ts'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  { languageOptions: { globals: globals.node } },
  { files: ['web/src/**'], languageOptions: { globals: globals.browser } },
  { files: ['**/*.cjs'], languageOptions: { sourceType: 'commonjs' }, rules: { '@typescript-eslint/no-require-imports': 'off' } },
  {
    rules: {
      // tsc reports unused locals and parameters (noUnusedLocals, noUnusedParameters).
      '@typescript-eslint/no-unused-vars': 'off',
    },
  },
  prettier,
);
