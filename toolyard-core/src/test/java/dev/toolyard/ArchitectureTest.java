package dev.toolyard;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/** Core knows no process, no socket and no environment; only internal code uses internal packages. */
class ArchitectureTest {
    private static final JavaClasses CORE = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("dev.toolyard");

    @Test
    void coreOpensNoSocket() {
        noClasses().should().dependOnClassesThat().resideInAnyPackage("java.net..", "javax.net..", "okhttp3..")
                .because("core knows no network; http_fetch lives in toolyard-builtins").check(CORE);
    }

    @Test
    void coreStartsNoProcess() {
        noClasses().should().dependOnClassesThat().haveFullyQualifiedName(ProcessBuilder.class.getName())
                .orShould().callMethod(Runtime.class, "exec", String.class)
                .orShould().callMethod(Runtime.class, "exec", String[].class)
                .because("subprocesses run only through the Sandbox port").check(CORE);
    }

    @Test
    void coreReadsNoEnvironment() {
        noClasses().should().callMethod(System.class, "getenv")
                .orShould().callMethod(System.class, "getenv", String.class)
                .because("configuration is given in code, explicitly").check(CORE);
    }

    @Test
    void theExecutorsHotPathTakesNoLockOfItsOwn() {
        noClasses().that().resideInAPackage("dev.toolyard") // the executor, every stage, the pool, the stores
                .or().haveFullyQualifiedName(dev.toolyard.internal.Deadlines.class.getName())
                .should().dependOnClassesThat().haveSimpleNameEndingWith("Lock")
                .orShould().callMethod(Object.class, "wait")
                .because("throughput should scale with threads; deadlines park with LockSupport, never a lock")
                .check(CORE);
    }

    @Test
    void theApiDoesNotDependOnInternalsOfOtherModules() {
        noClasses().that().resideOutsideOfPackage("..internal..")
                .should().dependOnClassesThat().resideInAnyPackage(
                        "dev.toolyard.sandbox.internal..", "dev.toolyard.builtins.internal..",
                        "dev.toolyard.store.jdbc.internal..", "dev.toolyard.cli.internal..")
                .check(new ClassFileImporter().importPackages("dev.toolyard.."));
    }
}
