package dev.cudnnfe;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The library's log lines reach a java.util.logging.Logger. */
class LoggingTest {
    private static final class Collector extends Handler {
        final List<LogRecord> records = new ArrayList<>();

        @Override
        public synchronized void publish(LogRecord record) {
            records.add(record);
        }

        @Override
        public void flush() {}

        @Override
        public void close() {}

        synchronized List<LogRecord> copy() {
            return new ArrayList<>(records);
        }
    }

    @AfterEach
    void restore() {
        Logging.routeTo(null);
        CudnnFe.setLogLevel(LogLevel.OFF);
    }

    @Test
    void aLibraryLineArrivesInTheLogger() {
        assumeTrue(TestSupport.cudnnAvailable(), "cuDNN is not loadable here");
        String json = TestSupport.deviceJson();
        assumeTrue(json != null, "no device description: set CUDNNFE_DEVICE_JSON");
        Logger logger = Logger.getLogger("dev.cudnnfe.test.logging");
        logger.setUseParentHandlers(false);
        logger.setLevel(Level.ALL);
        Collector collector = new Collector();
        logger.addHandler(collector);
        Logging.routeTo(logger);
        assertEquals(logger, Logging.target());
        CudnnFe.setLogLevel(LogLevel.INFO);
        try (Graph graph = TestSupport.seedConvGraph()) {
            graph.setDeviceProperties(json);
            graph.buildOperationGraph(null);
        }
        boolean found = false;
        for (LogRecord r : collector.copy()) {
            if (r.getMessage().startsWith("graph 'first_graph': operation graph of")) {
                assertEquals(Level.INFO, r.getLevel());
                found = true;
            }
        }
        assertTrue(found, collector.copy().size() + " records");

        // Restored: no more lines to the logger.
        Logging.routeTo(null);
        assertNull(Logging.target());
        int before = collector.copy().size();
        CudnnFe.setLogLevel(LogLevel.OFF);
        try (Graph graph = TestSupport.seedConvGraph()) {
            graph.setDeviceProperties(json);
            graph.buildOperationGraph(null);
        }
        assertEquals(before, collector.copy().size());
    }

    @Test
    void levelsMapToJavaLevels() {
        assertEquals(Level.SEVERE, Logging.level(1));
        assertEquals(Level.WARNING, Logging.level(2));
        assertEquals(Level.INFO, Logging.level(3));
        assertEquals(Level.FINE, Logging.level(4));
    }
}
