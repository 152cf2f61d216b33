package dev.toolyard;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class HandlerSlotsTest {
    @Test
    void aToolGetsNoMoreSlotsThanItsBoundAndGetsThemBackOnRelease() {
        HandlerSlots slots = new HandlerSlots(2, 10);
        HandlerSlots.Slot a = slots.acquire("a");
        HandlerSlots.Slot b = slots.acquire("a");

        assertThat(slots.acquire("a")).isNull();
        assertThat(slots.saturation("a")).contains("the tool already has 2");
        assertThat(slots.held("a")).isEqualTo(2);
        a.release();
        assertThat(slots.acquire("a")).isSameAs(b);
        assertThat(slots.held()).isEqualTo(2);
    }

    @Test
    void theExecutorWideBoundHoldsAcrossToolsAndARefusalTakesNothing() {
        HandlerSlots slots = new HandlerSlots(2, 3);
        slots.acquire("a");
        slots.acquire("a");
        HandlerSlots.Slot b = slots.acquire("b");

        assertThat(slots.acquire("b")).isNull();
        assertThat(slots.acquire("c")).isNull();
        assertThat(slots.saturation("c")).contains("the executor already has 3");
        assertThat(slots.held()).isEqualTo(3);
        assertThat(slots.held("b")).isEqualTo(1);
        assertThat(slots.held("c")).isZero();
        b.release();
        assertThat(slots.acquire("c")).isNotNull();
    }
}
