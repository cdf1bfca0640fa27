import releaseModels from '../../../../schemas/source/release-models.json' with { type: 'json' };

/**
 * What `schemas/source/release-models.json` says beyond the schema: the release's models that
 * blueprints cannot create (which `!Find` may still search) and read-only fields of the models
 * they can (which `!Find` may query).
 */

/** Models of the release that are not blueprint models: base classes, sessions, tokens, the framework's own. */
export const otherModels: ReadonlySet<string> = new Set(releaseModels.otherModels);

const families = releaseModels.readOnly.families.map(({ models, fields }) => ({
  pattern: new RegExp(`^${models.split('*').map(escapeRegExp).join('.*')}$`),
  fields,
}));
const byModel: Readonly<Record<string, readonly string[]>> = releaseModels.readOnly.models;

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

const known = new Map<string, readonly string[] | undefined>();

/**
 * The read-only fields of a blueprint model (its family's and its own), or undefined when the
 * file does not cover the model: then a field the schema does not list may still be one of them.
 */
export function readOnlyFields(model: string): readonly string[] | undefined {
  if (known.has(model)) return known.get(model);
  const matching = families.filter((family) => family.pattern.test(model));
  const own = byModel[model];
  const fields =
    matching.length === 0 && !own ? undefined : [...matching.flatMap((family) => family.fields), ...(own ?? [])];
  known.set(model, fields);
  return fields;
}
