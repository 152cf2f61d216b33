package dev.toolyard.mcp;

/**
 * The params of a {@code tools/call} whose line the transport could read only in part: too long to hold,
 * or nested too deep to parse. The transport found its name (when the line had one it could reach) and
 * hands this on in place of the params, so the call is still refused and recorded as a call. A Java
 * object: no JSON a client sends can become one. Immutable.
 *
 * @param name the tool name, or {@code null} when the line had none the scan reached
 * @param why what was wrong, fixed wording for the model; never {@code null}
 */
record UnreadableCall(String name, String why) {}
