// Jest's default order, with the SQL snapshot check (test/queries/query-snapshots.e2e-spec.ts)
// moved to the end: it compares the statements every other test file of the run issued with
// the committed snapshots, so it must come after them.
const Sequencer = require('@jest/test-sequencer').default;

const LAST = /[\\/]test[\\/]queries[\\/]query-snapshots\.e2e-spec\.ts$/;

class SqlSnapshotsLast extends Sequencer {
  async sort(tests) {
    const sorted = await super.sort(tests);
    return [...sorted.filter((test) => !LAST.test(test.path)), ...sorted.filter((test) => LAST.test(test.path))];
  }
}

module.exports = SqlSnapshotsLast;
