package dev.toolyard.sandbox.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

class SyscallProbeTest {
    private static final Map<String, String> ABI_WORKS = Map.of("abi/i386-getpid", "ret=4242", "abi/x32-getpid", "ret=-38");
    private static final Map<String, String> NO_ABI = Map.of("abi/i386-getpid", "signal=11", "abi/x32-getpid", "ret=-38");

    @Test
    void whereTheHostRunsTheForeignAbiOnlyTheFiltersKillPasses() {
        assertThat(SyscallProbe.foreignAbiViolations(ABI_WORKS,
                Map.of("abi/i386-getpid", "signal=31", "abi/x32-getpid", "signal=31"))).isEmpty();
        assertThat(SyscallProbe.foreignAbiViolations(ABI_WORKS,
                Map.of("abi/i386-getpid", "signal=11", "abi/x32-getpid", "signal=31")))
                .singleElement().asString().startsWith("abi/i386-getpid: signal=11");
    }

    @Test
    void aForeignCallThatGetsThroughFailsTheRuleWhateverTheHostDoes() {
        for (Map<String, String> host : java.util.List.of(ABI_WORKS, NO_ABI)) {
            assertThat(SyscallProbe.foreignAbiViolations(host,
                    Map.of("abi/i386-getpid", "ret=7", "abi/x32-getpid", "ret=0"))).hasSize(2);
        }
    }

    @Test
    void whereTheHostRefusesTheAbiItselfItsOwnRefusalOrTheKillPasses() {
        assertThat(SyscallProbe.foreignAbiViolations(NO_ABI,
                Map.of("abi/i386-getpid", "signal=11", "abi/x32-getpid", "signal=31"))).isEmpty();
        assertThat(SyscallProbe.foreignAbiViolations(NO_ABI,
                Map.of("abi/i386-getpid", "signal=31", "abi/x32-getpid", "signal=31"))).isEmpty();
    }

    @Test
    void x32MustAlwaysMeetTheFilterBecauseSeccompSeesItsNumberFirst() {
        assertThat(SyscallProbe.foreignAbiViolations(NO_ABI,
                Map.of("abi/i386-getpid", "signal=11", "abi/x32-getpid", "ret=-38")))
                .singleElement().asString().startsWith("abi/x32-getpid");
        assertThat(SyscallProbe.foreignAbiViolations(NO_ABI,
                Map.of("abi/i386-getpid", "signal=9", "abi/x32-getpid", "ret=-1"))).hasSize(2);
        assertThat(SyscallProbe.foreignAbiViolations(NO_ABI, Map.of())).as("a missing answer").hasSize(2);
    }

    @Test
    void onGvisorEachForeignCallMustFailOrBeKilledWhateverTheHostDoes() {
        for (Map<String, String> host : java.util.List.of(ABI_WORKS, NO_ABI)) {
            assertThat(SyscallProbe.foreignAbiViolationsOnGvisor(host,
                    Map.of("abi/i386-getpid", "ret=-9", "abi/x32-getpid", "ret=-38"))).isEmpty();
            assertThat(SyscallProbe.foreignAbiViolationsOnGvisor(host,
                    Map.of("abi/i386-getpid", "signal=31", "abi/x32-getpid", "signal=31"))).isEmpty();
            assertThat(SyscallProbe.foreignAbiViolationsOnGvisor(host,
                    Map.of("abi/i386-getpid", "ret=7", "abi/x32-getpid", "ret=0"))).hasSize(2);
            assertThat(SyscallProbe.foreignAbiViolationsOnGvisor(host, Map.of())).as("a missing answer").hasSize(2);
        }
    }

    @Test
    void aPidIsASuccessAndANegativeErrnoIsNot() {
        assertThat(SyscallProbe.succeeded("ret=1")).isTrue();
        assertThat(SyscallProbe.succeeded("ret=0")).isTrue();
        assertThat(SyscallProbe.succeeded("ret=-38")).isFalse();
        assertThat(SyscallProbe.succeeded("signal=31")).isFalse();
        assertThat(SyscallProbe.succeeded(null)).isFalse();
        assertThat(SyscallProbe.kinds(Map.of("a", "ret=99", "b", "signal=11")))
                .containsEntry("a", "succeeded").containsEntry("b", "signal=11");
    }
}
