// Lint rules, including the house plan's dependency direction: the query language and the domain
// know no driver and no web framework; routes never reach a database driver.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const drivers = ['better-sqlite3', 'pg', 'pg-*'];
const frameworks = ['fastify', '@fastify/*'];
const dialects = ['**/db/dialects/*'];

function restrictImports(files, group, message) {
  return { files, rules: { 'no-restricted-imports': ['error', { patterns: [{ group, message }] }] } };
}

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'vigil-data/', 'web/dist/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { process: 'readonly', console: 'readonly' } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
    },
  },
  restrictImports(['src/domain/**', 'src/query/**'], [...drivers, ...frameworks],
    'domain/ and query/ stay free of drivers and frameworks.'),
  restrictImports(['src/modules/**/*.routes.ts', 'src/modules/**/*.schemas.ts'], [...drivers, ...dialects],
    'Routes reach data only through services and their store interfaces.'),
  restrictImports(['src/modules/**/*.service.ts'], [...drivers, ...dialects, ...frameworks],
    'Services know nothing of HTTP and reach data only through store interfaces.'),
  restrictImports(['src/modules/**/*.store.ts'], frameworks, 'Stores know nothing of HTTP.'),
);
