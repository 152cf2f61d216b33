/**
 * ToolYard for Spring AI: {@link dev.toolyard.springai.ToolYardToolCallbacks}, the registry's tools as
 * Spring AI tool callbacks, and {@link dev.toolyard.springai.ToolYardToolCallingManager}, which brings
 * call ids and unknown names to ToolYard. Every call goes through {@code ToolExecutor.execute}.
 */
package dev.toolyard.springai;
