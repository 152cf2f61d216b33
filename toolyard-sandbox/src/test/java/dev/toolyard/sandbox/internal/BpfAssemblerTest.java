package dev.toolyard.sandbox.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class BpfAssemblerTest {
    @Test
    void instructionsAreEightLittleEndianBytesWithResolvedOffsets() {
        BpfAssembler a = new BpfAssembler();
        BpfAssembler.Label yes = a.label("yes");
        a.loadWord(4).jumpIfEqual(0xC000_003E, null, yes).ret(0x7fff_0000).bind(yes).ret(0x8000_0000);
        assertThat(a.assemble()).containsExactly(
                0x20, 0x00, 0, 0, 0x04, 0x00, 0x00, 0x00,
                0x15, 0x00, 0, 1, 0x3E, 0x00, 0x00, (byte) 0xC0,
                0x06, 0x00, 0, 0, 0x00, 0x00, (byte) 0xff, 0x7f,
                0x06, 0x00, 0, 0, 0x00, 0x00, 0x00, (byte) 0x80);
    }

    @Test
    void aJumpOf255IsEncodedAndOneOf256FailsLoudly() {
        assertThat(jumpOver(255)[2]).isEqualTo((byte) 255);
        assertThatThrownBy(() -> jumpOver(256)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("256").hasMessageContaining("255");
    }

    private static byte[] jumpOver(int n) {
        BpfAssembler a = new BpfAssembler();
        BpfAssembler.Label far = a.label("far");
        a.jumpIfAnySet(1, far, null);
        for (int i = 0; i < n; i++) {
            a.ret(0);
        }
        a.bind(far).ret(1);
        return a.assemble();
    }

    @Test
    void anUnboundLabelFails() {
        BpfAssembler a = new BpfAssembler();
        a.jumpIfAtLeast(1, a.label("nowhere"), null).ret(0);
        assertThatThrownBy(a::assemble).hasMessageContaining("nowhere").hasMessageContaining("never bound");
    }

    @Test
    void aLabelBehindItsJumpFails() {
        BpfAssembler a = new BpfAssembler();
        BpfAssembler.Label back = a.label("back");
        a.bind(back).ret(0).jumpIfEqual(1, back, null).ret(0);
        assertThatThrownBy(a::assemble).hasMessageContaining("only forward");
    }

    @Test
    void aLabelBoundTwiceFails() {
        BpfAssembler a = new BpfAssembler();
        BpfAssembler.Label l = a.label("twice");
        a.bind(l).ret(0);
        assertThatThrownBy(() -> a.bind(l)).hasMessageContaining("twice");
    }

    @Test
    void aProgramMustEndInAReturnAndNotBeEmpty() {
        assertThatThrownBy(() -> new BpfAssembler().assemble()).hasMessageContaining("instructions");
        assertThatThrownBy(() -> new BpfAssembler().loadWord(0).assemble()).hasMessageContaining("return");
    }

    @Test
    void aProgramLongerThanTheKernelTakesFails() {
        BpfAssembler a = new BpfAssembler();
        for (int i = 0; i <= BpfAssembler.MAX_INSTRUCTIONS; i++) {
            a.ret(0);
        }
        assertThatThrownBy(a::assemble).hasMessageContaining("4096");
    }
}
