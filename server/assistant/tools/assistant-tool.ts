import type { Queryable } from '../../core/sql.ts';

/** What a tool call runs with: the job's connection and the one family it may read. */
export interface ToolContext {
  /** The job's `pg` client; every statement a tool runs is scoped by `familyId`. */
  db: Queryable;
  familyId: string;
  /** The family's currency (ISO 4217). */
  currency: string;
  /** Today for the family, `YYYY-MM-DD`: the date of "current" answers such as holdings. */
  today: string;
}

/**
 * A draft-07 schema of a tool's arguments: an object with named properties only, each bounded
 * (lengths, item counts, ranges, date formats) so that a model cannot ask for unbounded work.
 */
export interface JsonSchemaObject {
  type: 'object';
  properties: Record<string, Record<string, unknown>>;
  required?: string[];
  additionalProperties: false;
}

/** A read-only function the assistant may call. */
export interface AssistantTool {
  /** The function name the model calls (`get_accounts`). */
  name: string;
  /** What the tool answers, for the model. */
  description: string;
  parameters: JsonSchemaObject;
  /** Reads the family's data; `args` already match `parameters`. */
  run(context: ToolContext, args: Record<string, unknown>): Promise<Record<string, unknown>>;
}

/** A tool call as it is stored: what the model asked for and what it was told. */
export interface ToolOutcome {
  arguments: Record<string, unknown>;
  result: Record<string, unknown>;
}
