// Cohort bench stub, not slf4j: the vendored assignors log a few lines per call (the classic sticky
// assignor its whole final assignment at INFO), and without a logging binding slf4j is a no-op, which
// this is: every method of the levels the vendored sources call, as slf4j declares them, doing nothing.
package org.slf4j;

public interface Logger {
    default boolean isTraceEnabled() { return false; }
    default void trace(String message) { }
    default void trace(String format, Object argument) { }
    default void trace(String format, Object first, Object second) { }
    default void trace(String format, Object... arguments) { }

    default boolean isDebugEnabled() { return false; }
    default void debug(String message) { }
    default void debug(String format, Object argument) { }
    default void debug(String format, Object first, Object second) { }
    default void debug(String format, Object... arguments) { }

    default boolean isInfoEnabled() { return false; }
    default void info(String message) { }
    default void info(String format, Object argument) { }
    default void info(String format, Object first, Object second) { }
    default void info(String format, Object... arguments) { }

    default boolean isWarnEnabled() { return false; }
    default void warn(String message) { }
    default void warn(String format, Object argument) { }
    default void warn(String format, Object first, Object second) { }
    default void warn(String format, Object... arguments) { }

    default boolean isErrorEnabled() { return false; }
    default void error(String message) { }
    default void error(String format, Object argument) { }
    default void error(String format, Object first, Object second) { }
    default void error(String format, Object... arguments) { }
}
