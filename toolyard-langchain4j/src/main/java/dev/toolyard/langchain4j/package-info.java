/**
 * ToolYard for LangChain4j: {@link dev.toolyard.langchain4j.ToolYardToolProvider}, a tool provider whose
 * every call, unknown names included, goes through {@code ToolExecutor.execute}.
 */
package dev.toolyard.langchain4j;
