package dev.toolyard.spi;

import dev.toolyard.Reason;
import java.util.Set;

/**
 * An application's own word on a call, after the built-in checks up to containment and before capacity
 * and the approval gate: the place for a least-privilege policy (the {@code toolyard-policy} module's is one). Register with
 * {@link dev.toolyard.ToolExecutor.Builder#policyGate}. The executor asks the gate after containment,
 * so it sees arguments that passed the schema and path arguments already resolved inside the workspace,
 * and before a handler slot is taken, so a refused call holds nothing. Default: no gate, and the stage
 * costs one branch.
 *
 * <p>A gate decides from what a model sent, so it must not throw for any input: if it throws anyway the
 * call is refused ({@code policy_error}, the exception's class in the detail), never run. It runs on the
 * thread that called {@code execute}; it should be quick and deterministic. Implementations must be
 * thread-safe when the executor is used from several threads.
 *
 * <p>Stability: stable; a method added later comes with a default.
 */
@FunctionalInterface
public interface PolicyGate {
    /**
     * @param query the call; never {@code null}
     * @return the verdict; never {@code null} (a {@code null} verdict refuses the call, like a throw)
     */
    PolicyDecision decide(PolicyQuery query);

    /**
     * The gate's own reasons (made with {@link dev.toolyard.Reason#declare}) it refuses with. An executor
     * built with this gate adds them to its registry's reasons, so a tool that gives one of these wire
     * names another status is refused (at {@code build()} or at registration), naming both.
     *
     * @return the gate's tool-declared reasons; by default none; never {@code null}
     */
    default Set<Reason> reasons() {
        return Set.of();
    }
}
