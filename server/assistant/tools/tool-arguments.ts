import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import type { AssistantTool } from './assistant-tool.ts';

// Draft-07, the dialect of chat-completions tools. No type coercion and no defaults written into
// the arguments: a tool sees, and the chat stores, exactly what the model sent.
const ajv = new Ajv({ allErrors: true, strict: true });
addFormats.default(ajv, ['date']);

const validators = new WeakMap<AssistantTool, ValidateFunction>();

/** Problems reported at most, so that a wildly wrong call still gets a short answer. */
const PROBLEM_LIMIT = 5;

/**
 * The model's argument text as an object, or undefined when it is not a JSON object. A blank text
 * counts as no arguments: some OpenAI-compatible servers send "" for a call without any.
 */
export function parseArguments(text: string): Record<string, unknown> | undefined {
  if (text.trim() === '') return {};
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === 'object' && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/** What is wrong with `args` for `tool`, each problem naming its property; undefined when nothing is. */
export function argumentProblems(tool: AssistantTool, args: Record<string, unknown>): string | undefined {
  let validate = validators.get(tool);
  if (!validate) {
    validate = ajv.compile(tool.parameters);
    validators.set(tool, validate);
  }
  if (validate(args)) return undefined;
  const problems = [...new Set((validate.errors ?? []).map(describe))];
  return problems.slice(0, PROBLEM_LIMIT).join('; ');
}

function describe(error: ErrorObject): string {
  const at = error.instancePath.slice(1).replace(/\//g, '.');
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'additionalProperties':
      return `unknown property "${String(params.additionalProperty).slice(0, 100)}"`;
    case 'required':
      return `${String(params.missingProperty)} is required`;
    case 'enum':
      return `${at} must be one of: ${(params.allowedValues as unknown[]).join(', ')}`;
    // Dates are the only formats and patterns of the tools' schemas (tool-parameters.ts).
    case 'format':
    case 'pattern':
      return `${at} must be a calendar date written YYYY-MM-DD`;
    default:
      return `${at} ${error.message ?? 'is not valid'}`;
  }
}
