package dev.toolyard.springai.autoconfigure;

import dev.toolyard.EgressClass;
import dev.toolyard.InMemoryToolCallStore;
import dev.toolyard.PathContainment;
import dev.toolyard.SandboxPaths;
import dev.toolyard.ToolContext;
import dev.toolyard.ToolExecutor;
import dev.toolyard.ToolRegistry;
import dev.toolyard.springai.ToolContextResolver;
import dev.toolyard.springai.ToolYardToolCallbacks;
import dev.toolyard.springai.ToolYardToolCallingManager;
import dev.toolyard.spi.ApprovalGate;
import dev.toolyard.spi.PathPolicy;
import dev.toolyard.spi.PolicyGate;
import dev.toolyard.spi.ToolCallObserver;
import dev.toolyard.spi.ToolCallStore;
import io.micrometer.observation.ObservationRegistry;
import java.time.Duration;
import java.util.UUID;
import org.springframework.ai.model.tool.ToolCallingManager;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;

/**
 * Builds a ToolYard executor from {@code toolyard.*} properties ({@link ToolYardProperties}) and the
 * application's beans, and routes Spring AI's tool calls through it. Every bean backs off when the
 * application defines its own: {@link ToolRegistry} (default: empty), {@link PathPolicy} (default:
 * {@link PathContainment}, which contains paths and offers no isolation tier, so tools requiring
 * isolation are refused), {@link ToolCallStore} (default: {@link InMemoryToolCallStore}; define a
 * {@code JdbcToolCallStore} bean for durable records), {@link ToolExecutor},
 * {@link ToolContextResolver} and {@link ToolYardToolCallbacks} (offering the allowlist). The executor
 * takes the application's {@link ApprovalGate}, {@link PolicyGate} (one each at most) and every
 * {@link ToolCallObserver} bean, and caps each model turn at {@code toolyard.max-calls-per-round}.
 * Every {@code toolyard.*} value is checked here, at startup (see {@link InvalidToolYardPropertyException}).
 *
 * <p>Every {@link ToolCallingManager} bean (Spring AI's own included) is wrapped in a
 * {@link ToolYardToolCallingManager}; without one, a wrapped default manager is defined. Runs before
 * Spring AI's chat-client auto-configuration so its {@code ToolCallingAdvisor} gets the wrapped manager.
 */
@AutoConfiguration(
        afterName = "org.springframework.ai.model.tool.autoconfigure.ToolCallingAutoConfiguration",
        beforeName = "org.springframework.ai.model.chat.client.autoconfigure.ChatClientAutoConfiguration")
@ConditionalOnClass(ToolCallingManager.class)
@EnableConfigurationProperties(ToolYardProperties.class)
public class ToolYardAutoConfiguration {
    /** Created by Spring. */
    public ToolYardAutoConfiguration() {}

    /** @return an empty registry, when the application registers no tools of its own */
    @Bean
    @ConditionalOnMissingBean
    public ToolRegistry toolYardToolRegistry() {
        return new ToolRegistry();
    }

    /** @return path containment without isolation */
    @Bean
    @ConditionalOnMissingBean
    public PathPolicy toolYardPathPolicy() {
        return new PathContainment();
    }

    /** @return an in-memory store */
    @Bean
    @ConditionalOnMissingBean
    public ToolCallStore toolYardToolCallStore() {
        return new InMemoryToolCallStore();
    }

    /**
     * @param registry the tools
     * @param paths the containment port (a whole {@code Sandbox}, such as {@code TieredSandbox}, lends its tier)
     * @param store the store
     * @param properties the allowlist and the round cap
     * @param approvalGate the application's {@link ApprovalGate} bean, if it has one
     * @param observers the application's {@link ToolCallObserver} beans (such as OpenTelemetry's), in order
     * @param policyGate the application's {@link PolicyGate} bean, if it has one
     * @return the executor
     * @throws InvalidToolYardPropertyException if {@code toolyard.allowlist} names a tool that is not
     *     registered, or one that requires approval without an {@link ApprovalGate} bean, or
     *     {@code toolyard.max-calls-per-round} is below 1
     */
    @Bean
    @ConditionalOnMissingBean
    public ToolExecutor toolYardToolExecutor(ToolRegistry registry, PathPolicy paths, ToolCallStore store,
            ToolYardProperties properties, ObjectProvider<ApprovalGate> approvalGate,
            ObjectProvider<ToolCallObserver> observers, ObjectProvider<PolicyGate> policyGate) {
        ApprovalGate gate = approvalGate.getIfAvailable(); // two gates fail the context: which would decide?
        ToolExecutor.Builder builder = ToolExecutor.builder(registry, paths)
                .allowlist(PropertyChecks.allowlist(properties, registry, gate != null))
                .store(store)
                .maxCallsPerRound(PropertyChecks.maxCallsPerRound(properties));
        if (gate != null) {
            builder.approvalGate(gate);
        }
        observers.orderedStream().forEach(builder::observer);
        policyGate.ifAvailable(builder::policyGate);
        return builder.build();
    }

    /**
     * @param properties workspace, read roots, timeout, egress ceiling and the invocation-id key
     * @return a resolver giving every call the configured workspace, with the invocation id from the tool
     *     context when present (1-256 characters), else a fresh one per call
     * @throws InvalidToolYardPropertyException if {@code toolyard.workspace} is not set, relative, missing or
     *     not a directory, a read root is, the roots overlap, the timeout is not positive, the egress
     *     ceiling or the invocation-id key is empty
     */
    @Bean
    @ConditionalOnMissingBean
    public ToolContextResolver toolYardToolContextResolver(ToolYardProperties properties) {
        SandboxPaths workspace = PropertyChecks.workspace(properties);
        Duration timeout = PropertyChecks.timeout(properties);
        PropertyChecks.egressCeiling(properties);
        EgressClass ceiling = properties.getEgressCeiling();
        String key = PropertyChecks.invocationIdKey(properties);
        return toolContext -> {
            Object id = toolContext.getContext().get(key);
            String invocationId = id instanceof String s && !s.isEmpty() && s.length() <= 256
                    ? s : UUID.randomUUID().toString();
            return ToolContext.builder(invocationId, workspace).timeout(timeout).egressCeiling(ceiling).build();
        };
    }

    /**
     * @param registry the tools
     * @param executor the executor
     * @param resolver the per-call context
     * @param properties the allowlist, which is what is offered
     * @return the allowlisted tools as Spring AI callbacks
     */
    @Bean
    @ConditionalOnMissingBean
    public ToolYardToolCallbacks toolYardToolCallbacks(ToolRegistry registry, ToolExecutor executor,
            ToolContextResolver resolver, ToolYardProperties properties) {
        return ToolYardToolCallbacks.builder(registry, executor, resolver)
                .tools(PropertyChecks.allowlist(properties, registry, true)).build();
    }

    /**
     * @param tools the ToolYard callbacks
     * @param observations the application's observation registry, if it has exactly one
     * @return a ToolYard manager over Spring AI's default one, when the application has no manager
     */
    @Bean
    @ConditionalOnMissingBean(ToolCallingManager.class)
    public ToolCallingManager toolYardToolCallingManager(ToolYardToolCallbacks tools,
            ObjectProvider<ObservationRegistry> observations) {
        ObservationRegistry registry = observations.getIfUnique(() -> ObservationRegistry.NOOP);
        return new ToolYardToolCallingManager(tools,
                ToolCallingManager.builder().observationRegistry(registry).build(), registry);
    }

    /**
     * @param context the application context, asked which auto-configured beans exist
     * @param environment where the {@code toolyard.*} properties are set
     * @return the check that no {@code toolyard.*} property is set that only a replaced bean would read
     */
    @Bean
    public static SmartInitializingSingleton toolYardIgnoredProperties(ApplicationContext context,
            Environment environment) {
        return new IgnoredProperties(context, environment);
    }

    /**
     * @param tools the ToolYard callbacks, looked up when a manager is wrapped
     * @param observations the application's observation registry, if it has exactly one
     * @return a post-processor wrapping every other {@link ToolCallingManager} bean
     */
    @Bean
    public static BeanPostProcessor toolYardToolCallingManagerWrapper(ObjectProvider<ToolYardToolCallbacks> tools,
            ObjectProvider<ObservationRegistry> observations) {
        return new BeanPostProcessor() {
            @Override
            public Object postProcessAfterInitialization(Object bean, String beanName) {
                if (bean instanceof ToolCallingManager manager && !(bean instanceof ToolYardToolCallingManager)) {
                    return new ToolYardToolCallingManager(tools.getObject(), manager,
                            observations.getIfUnique(() -> ObservationRegistry.NOOP));
                }
                return bean;
            }
        };
    }
}
