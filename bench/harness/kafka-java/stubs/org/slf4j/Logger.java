// Cohort bench stub, not slf4j: the vendored assignor logs one debug line per call, and without a
// logging binding slf4j is a no-op, which this is (only the methods the vendored sources call).
package org.slf4j;

public interface Logger {
    void debug(String message);
}
