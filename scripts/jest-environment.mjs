import { TestEnvironment } from 'jest-environment-node';

/**
 * jest's Node environment, telling a test file that declares `@database-free` in its opening docblock (jest.config.js:
 * CI runs such a file in one pass only) that it does: test/support/test-database.ts then refuses to make a database
 * for it, so a file that declares it wrongly fails in every run instead of losing its run on the other database.
 */
export default class PaygraphEnvironment extends TestEnvironment {
  constructor(config, context) {
    super(config, context);
    // The file's own copy of the environment variables (jest gives each file one), not the worker's.
    if ('database-free' in context.docblockPragmas) this.global.process.env.PAYGRAPH_DATABASE_FREE_FILE = context.testPath;
  }
}
