package dev.toolyard.springai.autoconfigure;

import java.util.List;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.context.ApplicationContext;
import org.springframework.core.env.Environment;

/**
 * Once every singleton exists, stops startup when a {@code toolyard.*} property is set that no bean
 * reads because the application replaced the auto-configured bean that would: a property that silently
 * does nothing is a configuration error too. Stateless.
 */
final class IgnoredProperties implements SmartInitializingSingleton {
    static final String EXECUTOR = "toolYardToolExecutor";
    static final String RESOLVER = "toolYardToolContextResolver";
    static final String CALLBACKS = "toolYardToolCallbacks";

    private final ApplicationContext context;
    private final Environment environment;

    IgnoredProperties(ApplicationContext context, Environment environment) {
        this.context = context;
        this.environment = environment;
    }

    @Override
    public void afterSingletonsInstantiated() {
        boolean executor = context.containsBean(EXECUTOR);
        boolean resolver = context.containsBean(RESOLVER);
        boolean callbacks = context.containsBean(CALLBACKS);
        if (!executor) {
            refuse(PropertyChecks.MAX_CALLS_PER_ROUND, "ToolExecutor", "set maxCallsPerRound on its builder");
        }
        if (!executor && !callbacks) {
            refuse(PropertyChecks.ALLOWLIST, "ToolExecutor and ToolYardToolCallbacks",
                    "give the allowlist to their builders");
        }
        if (!resolver) {
            for (String property : List.of(PropertyChecks.WORKSPACE, PropertyChecks.READ_ROOTS, PropertyChecks.TIMEOUT,
                    PropertyChecks.EGRESS_CEILING, PropertyChecks.INVOCATION_ID_KEY)) {
                refuse(property, "ToolContextResolver", "build that into the ToolContext your resolver returns");
            }
        }
    }

    private void refuse(String property, String beans, String instead) {
        if (environment.containsProperty(property)) {
            throw new InvalidToolYardPropertyException(property, "is set, but the application defines its own "
                    + beans + " bean, which this property does not configure",
                    "Remove " + property + " and " + instead);
        }
    }
}
