package dev.toolyard.springai.autoconfigure;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.diagnostics.FailureAnalysisReporter;

/**
 * Keeps every failure analysis Spring Boot reports, as its own {@code LoggingFailureAnalysisReporter}
 * prints it: registered in the test class path's {@code META-INF/spring.factories}, so a real
 * {@code SpringApplication.run} hands it the analysis it chose among every registered analyzer.
 */
public final class CapturingFailureAnalysisReporter implements FailureAnalysisReporter {
    static final List<String> REPORTS = new CopyOnWriteArrayList<>();

    @Override
    public void report(FailureAnalysis analysis) {
        // The block of Boot's LoggingFailureAnalysisReporter, line for line.
        REPORTS.add("\n\n***************************\nAPPLICATION FAILED TO START\n***************************\n\n"
                + "Description:\n\n" + analysis.getDescription() + "\n"
                + (analysis.getAction() == null ? "" : "\nAction:\n\n" + analysis.getAction() + "\n"));
    }
}
