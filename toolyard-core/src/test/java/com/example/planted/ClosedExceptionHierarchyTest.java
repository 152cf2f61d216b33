package com.example.planted;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.toolyard.ModuleException;
import dev.toolyard.ToolYardException;
import java.lang.reflect.Modifier;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/** From outside ToolYard's packages, as an application would try it: the exception hierarchy is closed. */
class ClosedExceptionHierarchyTest {

    /** What an application outside dev.toolyard would write to extend the open branch. */
    static final class PlantedException extends ModuleException {
        private static final long serialVersionUID = 1L;

        PlantedException() {
            super("planted");
        }
    }

    @Test
    void toolYardExceptionIsSealedAndEveryPermittedSubclassButTheModuleBranchIsFinal() {
        assertThat(ToolYardException.class.isSealed()).isTrue();
        assertThat(Arrays.stream(ToolYardException.class.getPermittedSubclasses()).map(Class::getSimpleName))
                .containsExactlyInAnyOrder("DuplicateToolException", "InvalidToolSpecException",
                        "StoreFailureException", "IsolationUnavailableException", "ModuleException");
        for (Class<?> c : ToolYardException.class.getPermittedSubclasses()) {
            if (c != ModuleException.class) {
                assertThat(Modifier.isFinal(c.getModifiers())).as(c.getName()).isTrue();
            }
        }
        assertThat(Modifier.isAbstract(ModuleException.class.getModifiers())).isTrue();
    }

    @Test
    void aSubclassOfTheModuleBranchOutsideToolYardsPackagesCannotBeMade() {
        assertThatThrownBy(PlantedException::new)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("com.example.planted.ClosedExceptionHierarchyTest$PlantedException")
                .hasMessageContaining("dev.toolyard");
    }
}
