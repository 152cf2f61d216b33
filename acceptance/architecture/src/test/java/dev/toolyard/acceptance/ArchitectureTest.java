package dev.toolyard.acceptance;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.CompositeArchRule;
import dev.toolyard.PlantedCoreUsingAnotherModule;
import dev.toolyard.PlantedEnvironmentReader;
import dev.toolyard.PlantedLockUser;
import dev.toolyard.PlantedProcessStarter;
import dev.toolyard.PlantedSocketOpener;
import dev.toolyard.builtins.PlantedUseOfSandboxInternals;
import dev.toolyard.spi.PlantedPortUsingInternals;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The architecture rules, checked against the classes of every module at once (core, sandbox, builtins,
 * store-jdbc, contracts, cli, otel, policy: their jars are this module's class path), so a rule about how modules depend on one
 * another can actually fail. Each rule is also run against a class planted in this module's test tree
 * that breaks it, and must fail there: a rule that cannot fail is a defect.
 */
class ArchitectureTest {
    /** Core's own packages, exactly: the other modules live in subpackages of {@code dev.toolyard}. */
    private static final String[] CORE = {"dev.toolyard", "dev.toolyard.spi", "dev.toolyard.internal"};
    private static final List<String> MODULES = List.of("sandbox", "builtins", "store.jdbc", "contracts", "cli", "otel",
            "policy");
    /**
     * The qualified exports of module internals, as module-info declares them: none. A module that needs
     * another's code uses its API (contracts uses builtins' {@code HttpEgress}, {@code AddressClass} and
     * {@code IpLiterals}; every module uses core's {@code dev.toolyard.spi.Json}).
     */
    private static final java.util.Map<String, String> QUALIFIED_EXPORTS = java.util.Map.of();

    private static final JavaClasses PRODUCTION = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("dev.toolyard");

    static final ArchRule CORE_OPENS_NO_SOCKET = noClasses().that().resideInAnyPackage(CORE)
            .should().dependOnClassesThat().resideInAnyPackage("java.net..", "javax.net..", "okhttp3..")
            .because("core knows no network; http_fetch lives in toolyard-builtins");

    static final ArchRule CORE_STARTS_NO_PROCESS = noClasses().that().resideInAnyPackage(CORE)
            .should().dependOnClassesThat().haveFullyQualifiedName(ProcessBuilder.class.getName())
            .orShould().callMethod(Runtime.class, "exec", String.class)
            .orShould().callMethod(Runtime.class, "exec", String[].class)
            .because("subprocesses run only through the IsolatedRunner port");

    static final ArchRule CORE_READS_NO_ENVIRONMENT = noClasses().that().resideInAnyPackage(CORE)
            .should().callMethod(System.class, "getenv")
            .orShould().callMethod(System.class, "getenv", String.class)
            .because("configuration is given in code, explicitly");

    static final ArchRule THE_HOT_PATH_TAKES_NO_LOCK = noClasses().that().resideInAPackage("dev.toolyard")
            .or().haveFullyQualifiedName("dev.toolyard.internal.Deadlines")
            .should().dependOnClassesThat().haveSimpleNameEndingWith("Lock")
            .orShould().callMethod(Object.class, "wait")
            .because("throughput should scale with threads: the executor, its checks, its worker pool and the "
                    + "in-memory store are lock-free; deadlines park with LockSupport");

    static final ArchRule CORE_DEPENDS_ON_NO_OTHER_MODULE = noClasses().that().resideInAnyPackage(CORE)
            .should().dependOnClassesThat().resideInAnyPackage(MODULES.stream().map(m -> "dev.toolyard." + m + "..")
                    .toArray(String[]::new))
            .because("the other modules plug into core's ports; core never knows them");

    static final ArchRule THE_PORTS_USE_NO_INTERNALS = noClasses().that().resideInAPackage("dev.toolyard.spi")
            .should().dependOnClassesThat().resideInAPackage("..internal..")
            .because("an integrator implements a port from the public vocabulary alone");

    /** A module's internals are its own: no other module, API or internal, reaches into them. */
    static final ArchRule NO_MODULE_USES_ANOTHER_MODULES_INTERNALS = CompositeArchRule.of(MODULES.stream()
            .map(m -> (ArchRule) noClasses().that().resideOutsideOfPackages(
                            java.util.stream.Stream.concat(java.util.stream.Stream.of("dev.toolyard." + m + ".."),
                                    java.util.Optional.ofNullable(QUALIFIED_EXPORTS.get(m)).stream()
                                            .map(to -> "dev.toolyard." + to + ".."))
                                    .toArray(String[]::new))
                    .should().dependOnClassesThat().resideInAPackage("dev.toolyard." + m + ".internal..")
                    .because("dev.toolyard." + m + ".internal is not exported; other modules use its API")
                    .allowEmptyShould(true)) // a planted class may leave one module's rule with nothing to check
            .toList());

    @Test
    void everyModulesClassesArePresentSoTheRulesCanFail() {
        assertThat(PRODUCTION.stream().map(JavaClass::getName)).contains(
                "dev.toolyard.ToolExecutor", "dev.toolyard.spi.ToolCallObserver", "dev.toolyard.sandbox.TieredSandbox",
                "dev.toolyard.builtins.BuiltinTools", "dev.toolyard.store.jdbc.JdbcToolCallStore",
                "dev.toolyard.cli.Main", "dev.toolyard.sandbox.internal.BwrapCommand",
                "dev.toolyard.otel.ToolYardTelemetry", "dev.toolyard.contracts.ToolContract",
                "dev.toolyard.policy.PolicyGates");
        assertThat(PRODUCTION.stream().map(JavaClass::getName)).noneMatch(n -> n.contains("Planted"));
    }

    @Test
    void coreOpensNoSocket() {
        CORE_OPENS_NO_SOCKET.check(PRODUCTION);
        assertFailsOn(CORE_OPENS_NO_SOCKET, PlantedSocketOpener.class);
    }

    @Test
    void coreStartsNoProcess() {
        CORE_STARTS_NO_PROCESS.check(PRODUCTION);
        assertFailsOn(CORE_STARTS_NO_PROCESS, PlantedProcessStarter.class);
    }

    @Test
    void coreReadsNoEnvironment() {
        CORE_READS_NO_ENVIRONMENT.check(PRODUCTION);
        assertFailsOn(CORE_READS_NO_ENVIRONMENT, PlantedEnvironmentReader.class);
    }

    @Test
    void theExecutorsHotPathTakesNoLockOfItsOwn() {
        THE_HOT_PATH_TAKES_NO_LOCK.check(PRODUCTION);
        assertFailsOn(THE_HOT_PATH_TAKES_NO_LOCK, PlantedLockUser.class);
    }

    @Test
    void coreDependsOnNoOtherModule() {
        CORE_DEPENDS_ON_NO_OTHER_MODULE.check(PRODUCTION);
        assertFailsOn(CORE_DEPENDS_ON_NO_OTHER_MODULE, PlantedCoreUsingAnotherModule.class);
    }

    @Test
    void thePortsUseNoInternals() {
        THE_PORTS_USE_NO_INTERNALS.check(PRODUCTION);
        assertFailsOn(THE_PORTS_USE_NO_INTERNALS, PlantedPortUsingInternals.class);
    }

    @Test
    void theApiDoesNotDependOnInternalsOfOtherModules() {
        NO_MODULE_USES_ANOTHER_MODULES_INTERNALS.check(PRODUCTION);
        assertFailsOn(NO_MODULE_USES_ANOTHER_MODULES_INTERNALS, PlantedUseOfSandboxInternals.class);
    }

    private static void assertFailsOn(ArchRule rule, Class<?> planted) {
        JavaClasses violation = new ClassFileImporter().importClasses(planted);
        assertThatThrownBy(() -> rule.check(violation)).as("the rule must fail on " + planted.getSimpleName())
                .isInstanceOf(AssertionError.class).hasMessageContaining(planted.getSimpleName());
    }
}
