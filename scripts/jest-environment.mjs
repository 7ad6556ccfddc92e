import vm from 'node:vm';
import { TestEnvironment } from 'jest-environment-node';

/**
 * jest's Node environment, with two changes.
 *
 * Its context is made with `vm.constants.DONT_CONTEXTIFY` (Node 22.8): the test file's global object is then an
 * ordinary one. jest contextifies a Proxy of its own, and every global a test or the service under test reads
 * (`Math`, `JSON`, `Buffer`, `Date`) then goes through Node's interceptor and that Proxy: `Math.abs` in a loop ran 100
 * times slower than in Node, pngjs's row filters 90 times, and jest's files used 12 % more CPU in all (bench/README.md
 * has the figures). jest-environment-node builds its global in its constructor, on the context `vm.createContext`
 * returns, so the constructor runs with `createContext` answering a context of that kind; jest's own Proxy, which only
 * tracks globals a file sets so they can be deleted at teardown, goes unused (the whole context is dropped then).
 * If a later jest makes its context otherwise, the check below fails every file instead of silently going slow.
 *
 * A test file that declares `@database-free` in its opening docblock (jest.config.js: CI runs such a file in one
 * pass only) is told so: test/support/test-database.ts then refuses to make a database for it, so a file that
 * declares it wrongly fails in every run instead of losing its run on the other database.
 */
export default class PaygraphEnvironment extends TestEnvironment {
  constructor(config, context) {
    const createContext = vm.createContext;
    vm.createContext = () => createContext(vm.constants.DONT_CONTEXTIFY);
    try {
      super(config, context);
    } finally {
      vm.createContext = createContext;
    }
    // With DONT_CONTEXTIFY the context is its own global; jest's contextified Proxy is not.
    if (this.global !== this.getVmContext()) throw new Error('jest-environment-node no longer makes its context with vm.createContext');
    // The file's own copy of the environment variables (jest gives each file one), not the worker's.
    if ('database-free' in context.docblockPragmas) this.global.process.env.PAYGRAPH_DATABASE_FREE_FILE = context.testPath;
  }
}
