package dev.toolyard.sandbox.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class DeniedCallTest {
    @Test
    void anErrnoOutsideWhatSeccompCanReturnIsRefused() {
        assertThatThrownBy(() -> new DeniedCall("ptrace", new DeniedCall.Always(), 0, "x"))
                .hasMessageContaining("errno must be 1..4095, got 0");
        assertThatThrownBy(() -> new DeniedCall("ptrace", new DeniedCall.Always(), 4096, "x"))
                .hasMessageContaining("4096");
        assertThat(new DeniedCall("ptrace", new DeniedCall.Always(), 4095, "x").errno()).isEqualTo(4095);
    }

    @Test
    void anArgumentIndexOutsideZeroToFiveIsRefused() {
        assertThatThrownBy(() -> new DeniedCall.AnyFlagSet(6, 1)).hasMessageContaining("0..5, got 6");
        assertThatThrownBy(() -> new DeniedCall.ArgIn(-1, List.of(1))).hasMessageContaining("got -1");
        assertThatThrownBy(() -> new DeniedCall.ArgNotIn(7, List.of(1))).hasMessageContaining("got 7");
    }

    @Test
    void anEmptyValueListIsRefusedAndAGivenOneIsCopied() {
        assertThatThrownBy(() -> new DeniedCall.ArgIn(0, List.of())).hasMessageContaining("at least one");
        assertThatThrownBy(() -> new DeniedCall.ArgNotIn(0, List.of())).hasMessageContaining("at least one");
        List<Integer> values = new ArrayList<>(List.of(1));
        DeniedCall.ArgIn in = new DeniedCall.ArgIn(1, values);
        values.add(2);
        assertThat(in.values()).containsExactly(1);
    }

    @Test
    void nullPartsAreRefused() {
        assertThatThrownBy(() -> new DeniedCall(null, new DeniedCall.Always(), 1, "x"))
                .isInstanceOf(NullPointerException.class).hasMessageContaining("name");
        assertThatThrownBy(() -> new DeniedCall("bpf", null, 1, "x")).hasMessageContaining("when");
    }
}
