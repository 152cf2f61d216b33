package dev.toolyard.springai.autoconfigure;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Turns an {@link InvalidToolYardPropertyException} anywhere in a startup failure's causes into Boot's
 * "APPLICATION FAILED TO START" report: the description names the property and what is wrong, the
 * action says how to fix it. Registered in {@code META-INF/spring.factories}, where Spring Boot 4.1
 * looks for failure analyzers. Stateless.
 */
final class InvalidToolYardPropertyFailureAnalyzer extends AbstractFailureAnalyzer<InvalidToolYardPropertyException> {
    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, InvalidToolYardPropertyException cause) {
        return new FailureAnalysis("The ToolYard property " + cause.property() + " " + cause.problem() + ".",
                cause.action(), cause);
    }
}
