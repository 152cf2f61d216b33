/**
 * ToolYard for LangChain4j: {@link dev.toolyard.langchain4j.ToolYardToolProvider}, wired into an AI service
 * with {@code configure}, runs every tool call, unknown names included, through ToolYard's executor, one
 * model turn as one {@code executeRound}.
 */
package dev.toolyard.langchain4j;
