package dev.lancelot.spark;

import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.core.LogEvent;
import org.apache.logging.log4j.core.LoggerContext;
import org.apache.logging.log4j.core.appender.AbstractAppender;
import org.apache.logging.log4j.core.config.Configuration;
import org.apache.logging.log4j.core.config.LoggerConfig;
import org.apache.logging.log4j.core.config.Property;

/**
 * Captures every log event of this JVM (Spark logs through log4j 2) while open: the logger {@code
 * verbose} at every level, everything else at INFO and above. {@link #text()} is each event's
 * logger name, formatted message and stack trace.
 */
final class LogCapture implements AutoCloseable {
  private final LoggerContext context;
  private final Appender appender;
  private final Level rootLevel;
  private final LoggerConfig verbose;
  private final boolean verboseAdded;
  private final Level verboseLevel;

  private LogCapture(String verboseLogger) {
    context = (LoggerContext) LogManager.getContext(false);
    Configuration config = context.getConfiguration();
    appender = new Appender();
    appender.start();
    config.addAppender(appender);
    LoggerConfig root = config.getRootLogger();
    rootLevel = root.getLevel();
    root.addAppender(appender, Level.INFO, null);
    if (rootLevel.isMoreSpecificThan(Level.WARN)) {
      root.setLevel(Level.INFO);
    }
    LoggerConfig existing = config.getLoggerConfig(verboseLogger);
    if (existing.getName().equals(verboseLogger)) {
      verbose = existing;
      verboseAdded = false;
    } else {
      verbose = new LoggerConfig(verboseLogger, Level.ALL, true);
      config.addLogger(verboseLogger, verbose);
      verboseAdded = true;
    }
    verboseLevel = verbose.getLevel();
    verbose.setLevel(Level.ALL);
    verbose.addAppender(appender, Level.ALL, null);
    context.updateLoggers();
  }

  static LogCapture start(String verboseLogger) {
    return new LogCapture(verboseLogger);
  }

  String text() {
    synchronized (appender.lines) {
      return String.join("\n", appender.lines);
    }
  }

  @Override
  public void close() {
    Configuration config = context.getConfiguration();
    config.getRootLogger().removeAppender(appender.getName());
    config.getRootLogger().setLevel(rootLevel);
    verbose.removeAppender(appender.getName());
    if (verboseAdded) {
      config.removeLogger(verbose.getName());
    } else {
      verbose.setLevel(verboseLevel);
    }
    context.updateLoggers();
    appender.stop();
  }

  private static final class Appender extends AbstractAppender {
    final List<String> lines = new ArrayList<>();

    Appender() {
      super("capture-" + UUID.randomUUID(), null, null, true, Property.EMPTY_ARRAY);
    }

    @Override
    public void append(LogEvent event) {
      StringBuilder sb =
          new StringBuilder(event.getLoggerName())
              .append(' ')
              .append(event.getLevel())
              .append(' ')
              .append(event.getMessage().getFormattedMessage());
      if (event.getThrown() != null) {
        java.io.StringWriter trace = new java.io.StringWriter();
        event.getThrown().printStackTrace(new java.io.PrintWriter(trace));
        sb.append('\n').append(trace);
      }
      synchronized (lines) {
        lines.add(sb.toString());
      }
    }
  }
}
