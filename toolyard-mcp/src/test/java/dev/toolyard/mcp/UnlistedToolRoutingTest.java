package dev.toolyard.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import io.modelcontextprotocol.spec.McpServerSession;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** What the routing relies on in the SDK; its behaviour on the wire is in {@link ToolYardMcpServerTest}. */
class UnlistedToolRoutingTest {
    @Test
    void theRoutingSessionDelegatesEveryPublicMethodTheSdkSessionDeclares() throws Exception {
        // The routing session inherits the SDK session's state but must never use it: a public method an
        // SDK upgrade adds would otherwise run on that unused state. This fails first, naming the method.
        Class<?> routing = Class.forName(UnlistedToolRouting.class.getName() + "$RoutingSession");
        assertThat(routing.getSuperclass()).isEqualTo(McpServerSession.class);
        List<String> notDelegated = new ArrayList<>();
        for (Method m : McpServerSession.class.getDeclaredMethods()) {
            if (!Modifier.isPublic(m.getModifiers()) || Modifier.isStatic(m.getModifiers())) {
                continue;
            }
            try {
                routing.getDeclaredMethod(m.getName(), m.getParameterTypes());
            } catch (NoSuchMethodException e) {
                notDelegated.add(m.getName() + Arrays.toString(m.getParameterTypes()));
            }
        }
        assertThat(notDelegated).isEmpty();
        assertThat(Modifier.isFinal(McpServerSession.class.getModifiers())).isFalse();
    }
}
