// The import rules of docs/architecture.md, written once: `npm run lint` (and so `npm run
// typecheck` and CI) fails when an import breaks one. Type-only imports count: a type is a
// dependency too.
/** The pure helpers any layer, a domain included, may use. */
const PURE_HELPERS = '^shared/platform/(repo-ref|http-link|errors|accounts/roles)\\.ts$';
const PRODUCTS = '(merge-queue|flaky-tests)';

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'domain-is-pure',
      comment: "A product's domain imports only its own domain and the pure helpers: no store, service, format, database or framework.",
      severity: 'error',
      from: { path: '^shared/([^/]+)/domain/' },
      to: { dependencyTypesNot: ['core'], pathNot: ['^shared/$1/domain/', PURE_HELPERS] },
    },
    {
      name: 'platform-knows-no-product',
      comment: 'The platform (config-free helpers, accounts, database, jobs, events, metrics, runtime) serves every module and knows none.',
      severity: 'error',
      from: { path: '^shared/platform/' },
      to: { path: `^shared/(${PRODUCTS.slice(1, -1)}|github|providers|composition)/` },
    },
    {
      name: 'products-meet-through-ports',
      comment: 'The merge queue and the flaky-tests side never import each other: the composition root fills their ports.',
      severity: 'error',
      from: { path: `^shared/${PRODUCTS}/` },
      to: { path: `^shared/(${PRODUCTS.slice(1, -1)}|github)/`, pathNot: '^shared/$1/' },
    },
    {
      name: 'github-drives-the-merge-queue-only',
      comment: 'The GitHub integration drives the merge queue; it knows nothing of the flaky-tests side.',
      severity: 'error',
      from: { path: '^shared/github/' },
      to: { path: '^shared/(flaky-tests|composition)/' },
    },
    {
      name: 'adapters-are-adapters',
      comment: "A provider implements the merge queue's port (services/provider.ts) over the domain's model; it uses no use case and no integration.",
      severity: 'error',
      from: { path: '^shared/providers/' },
      to: {
        path: '^shared/(merge-queue|flaky-tests|github|composition)/',
        pathNot: ['^shared/merge-queue/domain/', '^shared/merge-queue/services/provider\\.ts$'],
      },
    },
    {
      name: 'store-below-services',
      comment: 'Repositories are what services stand on: a repository never imports a service.',
      severity: 'error',
      from: { path: '^shared/[^/]+/store/' },
      to: { path: '^shared/[^/]+/services/' },
    },
    {
      name: 'services-over-repositories',
      comment: 'Services depend on repository interfaces, never on the database layer or a query document.',
      severity: 'error',
      from: { path: '^shared/[^/]+/services/' },
      to: { path: '^shared/platform/database/' },
    },
    {
      name: 'composition-at-the-root',
      comment: 'Only the entry points (api, workers, scripts) and the tests build the service: no module reaches for the root.',
      severity: 'error',
      from: { path: '^shared/', pathNot: '^shared/composition/' },
      to: { path: '^shared/composition/' },
    },
    {
      name: 'inward-only',
      comment: 'shared/ is imported by the entry points, never the other way; the API and the workers do not import each other.',
      severity: 'error',
      from: { path: '^shared/' },
      to: { path: '^(api|workers|scripts|cli|web|test|openapi)/' },
    },
    {
      name: 'api-and-workers-apart',
      severity: 'error',
      from: { path: '^(api|workers)/' },
      to: { path: '^(scripts|cli|web)/' },
    },
    {
      name: 'api-is-not-a-worker',
      severity: 'error',
      from: { path: '^api/' },
      to: { path: '^workers/' },
    },
    {
      name: 'clients-use-the-api',
      comment: 'The dashboard and the CLI are clients of the public API: their wire types are generated from it (openapi/), never imported from the server.',
      severity: 'error',
      from: { path: '^(web|cli)/' },
      to: { path: '^(api|shared|workers|scripts|test)/' },
    },
    {
      name: 'nothing-imports-test',
      comment: 'Tests import the code; the code never imports tests.',
      severity: 'error',
      from: { pathNot: '^test/' },
      to: { path: '^test/' },
    },
    {
      name: 'no-circular',
      comment: 'An import cycle makes the order of module evaluation matter and hides a missing boundary.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'not-to-unresolvable',
      comment: 'An import that resolves to nothing is a typo or a missing dependency.',
      severity: 'error',
      from: {},
      to: { couldNotResolve: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: ['^web/dist/', '^dist/', 'node_modules'] },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      extensions: ['.ts', '.tsx', '.js', '.mjs', '.json'],
    },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
