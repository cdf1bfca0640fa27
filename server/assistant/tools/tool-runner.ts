import type { AssistantTool, ToolContext, ToolOutcome } from './assistant-tool.ts';
import { InvalidToolArguments } from './invalid-arguments.ts';
import { argumentProblems, parseArguments } from './tool-arguments.ts';
import { ASSISTANT_TOOLS, findTool } from './tool-registry.ts';

/** Longest raw argument text kept when it is not a JSON object. */
const RAW_LIMIT = 2000;

/**
 * Runs the tool `name` with the model's argument text. Bad input from the model never throws: an
 * unknown tool or arguments that are not a JSON object or break the schema answer
 * `{ error: 'unknown_tool' | 'invalid_arguments', message, hint }`, so the model can try again.
 * Database errors propagate (the job retries).
 */
export async function runTool(context: ToolContext, name: string, rawArguments: string): Promise<ToolOutcome> {
  const parsed = parseArguments(rawArguments);
  const stored = parsed ?? { raw: rawArguments.slice(0, RAW_LIMIT) };
  const tool = findTool(name);
  if (!tool) {
    return {
      arguments: stored,
      result: {
        error: 'unknown_tool',
        message: `There is no tool named "${name.slice(0, 100)}".`,
        hint: `Call one of: ${ASSISTANT_TOOLS.map((known) => known.name).join(', ')}.`,
      },
    };
  }
  if (!parsed) return { arguments: stored, result: invalidArguments(tool, 'the arguments must be a JSON object') };
  const problems = argumentProblems(tool, parsed);
  if (problems) return { arguments: parsed, result: invalidArguments(tool, problems) };
  try {
    return { arguments: parsed, result: await tool.run(context, parsed) };
  } catch (error) {
    if (error instanceof InvalidToolArguments)
      return { arguments: parsed, result: invalidArguments(tool, error.message) };
    throw error;
  }
}

function invalidArguments(tool: AssistantTool, message: string): Record<string, unknown> {
  const { properties, required = [] } = tool.parameters;
  const requiredNote = required.length ? `; required: ${required.join(', ')}` : '';
  return {
    error: 'invalid_arguments',
    message: `${tool.name}: ${message}`,
    hint: `Fix the arguments and call ${tool.name} again. Allowed properties: ${Object.keys(properties).join(', ')}${requiredNote}.`,
  };
}

/** The tools in the `tools` format of OpenAI chat completions. */
export function toolDefinitions(): {
  type: 'function';
  function: { name: string; description: string; parameters: object };
}[] {
  return ASSISTANT_TOOLS.map((tool) => ({
    type: 'function',
    function: { name: tool.name, description: tool.description, parameters: tool.parameters },
  }));
}
