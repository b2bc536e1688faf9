// Prints the plain closing line CI reads ("N passed, N failed"), since Jest's own summary is not one.
// It counts tests, and a suite that failed without a failing test (it did not compile, a hook threw,
// an import failed) counts as one failed test and is named: otherwise it would read "0 failed".
const { relative } = require('node:path');

class SummaryReporter {
  onRunComplete(_contexts, results) {
    const skipped = results.numPendingTests + results.numTodoTests;
    const brokenSuites = results.testResults.filter(
      (suite) => suite.testExecError || (suite.failureMessage && suite.numFailingTests === 0),
    );
    const failed = results.numFailedTests + brokenSuites.length;
    console.log(`\ntests: ${results.numPassedTests} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
    for (const suite of brokenSuites) {
      const message = suite.testExecError?.message ?? suite.failureMessage ?? '';
      const firstLine = message.split('\n').find((line) => line.trim() !== '') ?? 'failed';
      console.log(`  suite failed to run: ${relative(process.cwd(), suite.testFilePath)}: ${firstLine.trim()}`);
    }
  }
}
module.exports = SummaryReporter;
