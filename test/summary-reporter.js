// Prints the plain closing line CI reads ("N passed, N failed"), since Jest's own summary is not one.
class SummaryReporter {
  onRunComplete(_contexts, results) {
    const skipped = results.numPendingTests + results.numTodoTests;
    console.log(`\ntests: ${results.numPassedTests} passed, ${results.numFailedTests} failed${skipped ? `, ${skipped} skipped` : ''}`);
  }
}
module.exports = SummaryReporter;
