package dev.toolyard.testing;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.opentest4j.AssertionFailedError;
import org.opentest4j.TestAbortedException;

/** The skip rule: a skip outside CI, a failure under {@code CI=true}, nothing when the host has it. */
class SkipTest {
    @Test
    void whatTheHostHasNeitherSkipsNorFails() {
        assertThatCode(() -> Skip.unless(true, "nothing")).doesNotThrowAnyException();
    }

    @Test
    void whatTheHostLacksSkipsOutsideCi() {
        assertThatThrownBy(() -> Skip.unless(false, "frobnicator is not installed", false))
                .isInstanceOf(TestAbortedException.class)
                .hasMessageContaining("frobnicator is not installed");
        assertThatCode(() -> Skip.unless(true, "nothing", false)).doesNotThrowAnyException();
    }

    @Test
    void whatTheHostLacksFailsUnderCi() {
        assertThatThrownBy(() -> Skip.unless(false, "frobnicator is not installed", true))
                .isInstanceOf(AssertionFailedError.class)
                .hasMessage("CI=true, so this must run, but frobnicator is not installed");
        assertThatCode(() -> Skip.unless(true, "nothing", true)).doesNotThrowAnyException();
    }
}
