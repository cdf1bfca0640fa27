import { problem, schemaCodes, syntaxAndTagCodes, withFix, withSuggestions, type Problem } from '../problem.ts';
import type { BNode, BScalar, BSeq } from '../reading/blueprint-node.ts';
import { isDeferred, NO_NODES } from '../reading/node-queries.ts';
import type { ModelInfo, SchemaIndex } from '../schema/schema-index.ts';
import type { Check } from './check.ts';
import { otherModels, readOnlyFields } from './release-models.ts';
import { suggest } from '../../../../common/spelling.ts';
import { hint } from './suggestions.ts';
import { taggedNodes } from './tagged-nodes.ts';

const codes = syntaxAndTagCodes;
const findTags: ReadonlySet<string> = new Set(['!Find', '!FindObject']);

/** Django's name for the primary key of any model, whatever its field is called. */
const primaryKeyAlias = 'pk';

/**
 * Checks the arguments of every `!Find` and `!FindObject` in the tree: `[app.model, [field, value], ...]`.
 *
 * The service reads each query straight from its YAML node (`for node in query.value`) and only
 * resolves tags INSIDE it, so a query must be a literal two-item sequence: a scalar (flat
 * arguments) or a tagged node in its place fails or is misread. The model is looked up like an
 * entry's (app label exact, model part folded to lowercase), the fields by the part before any
 * Django lookup (`name__iexact`). !Find may search any model of the release by any field: a model
 * the release does not have is an error, one blueprints cannot create a warning
 * (`release-models.ts`); a field neither writable nor read-only is an error where the read-only
 * fields are known, else a warning. Never throws.
 */
export function checkFindTags(root: BNode | undefined, index: SchemaIndex): Problem[] {
  const problems: Problem[] = [];
  if (root) collectFindProblems(root, index, NO_NODES, undefined, problems);
  return problems;
}

/** The `!Find` queries, in each entry and then around the entries. */
export const findCheck: Check = {
  id: 'find',
  checkEntry: (entry, context, problems) =>
    collectFindProblems(entry, context.index, context.checked, context.text, problems),
  checkBlueprint: (root, context, problems) => {
    if (root) collectFindProblems(root, context.index, context.checked, context.text, problems);
  },
};

function collectFindProblems(
  root: BNode,
  index: SchemaIndex,
  skip: ReadonlySet<BNode>,
  text: string | undefined,
  problems: Problem[],
): void {
  const tagged = taggedNodes(root, skip);
  for (let i = 0; i < tagged.length; i++) {
    const node = tagged[i]!;
    if (node.kind === 'seq' && findTags.has(node.tag!) && node.items.length > 0) checkFind(node, index, text, problems);
  }
}

function checkFind(node: BSeq, index: SchemaIndex, text: string | undefined, problems: Problem[]): void {
  const tag = node.tag!;
  const [modelNode, ...queries] = node.items;
  const model = checkModel(tag, modelNode!, index, problems);
  let flat: BScalar[] = [];
  const reportFlat = (): void => {
    if (flat.length > 0) problems.push(flatArguments(tag, modelNode!, flat, text));
    flat = [];
  };
  for (const query of queries) {
    if (query.kind === 'scalar' && !isDeferred(query)) {
      flat.push(query);
      continue;
    }
    reportFlat();
    checkQuery(tag, query, model, problems);
  }
  reportFlat();
}

/** The model named by the first item, when the schema knows it (for the field checks). */
function checkModel(tag: string, node: BNode, index: SchemaIndex, problems: Problem[]): ModelInfo | undefined {
  if (isDeferred(node)) return undefined;
  if (node.kind !== 'scalar' || typeof node.value !== 'string' || !node.value.includes('.')) {
    const shown =
      node.kind === 'scalar' ? `'${String(node.value)}'` : `a ${node.kind === 'seq' ? 'sequence' : 'mapping'}`;
    const suggestions = node.kind === 'scalar' ? byModelPart(String(node.value), index) : [];
    const names = suggestions.map((name) => `'${name}'`).join(' or ');
    const message = `The first item of ${tag} is the model, written <app>.<model>, not ${shown}.${names ? ` Did you mean ${names}?` : ''}`;
    problems.push(withSuggestions(problem(codes, 'tag-find-shape', node.range, message), node.range, suggestions));
    return undefined;
  }
  const written = node.value;
  const found = index.lookupModel(written);
  if (found.model && !found.caseMismatch) return found.model;
  if (found.model && written.split('.')[0] === found.model.app) {
    // The service folds the model part to lowercase, as it does for an entry's model.
    const message = `model names are lowercase: ${found.model.name}.`;
    problems.push(
      withSuggestions(problem(schemaCodes, 'model-case', node.range, message), node.range, [found.model.name]),
    );
    return found.model;
  }
  if (!found.model) {
    const [app, part] = [written.slice(0, written.indexOf('.')), written.slice(written.indexOf('.') + 1)];
    const other = `${app}.${part.toLowerCase()}`;
    if (otherModels.has(other)) {
      const message = `${other} is a model of the release that blueprints cannot create: ${tag} can search it, but its fields are not checked.`;
      problems.push(problem(codes, 'tag-find-model-not-blueprint', node.range, message));
      return undefined;
    }
  }
  const suggestions = found.model ? [found.model.name] : found.suggestions;
  const names = suggestions.map((name) => `'${name}'`).join(suggestions.length === 2 ? ' or ' : ', ');
  const why = found.model ? ' (the app label must match exactly)' : '';
  const message = `Unknown model '${written}' for ${tag}${why}.${names ? ` Did you mean ${names}?` : ''}`;
  problems.push(
    withSuggestions(problem(codes, 'tag-find-model-unknown', node.range, message), node.range, suggestions),
  );
  return undefined;
}

/** Models whose part after the app label is `word` (a name written without its app). */
function byModelPart(word: string, index: SchemaIndex): string[] {
  const lower = word.toLowerCase();
  return index.modelNames.filter((name) => name.slice(name.indexOf('.') + 1) === lower).slice(0, 3);
}

/** Scalars where pairs belong: one problem for each run of them, showing the pairs they were meant to be. */
function flatArguments(tag: string, modelNode: BNode, run: readonly BScalar[], text: string | undefined): Problem {
  // As written when the text is known (`y` stays `y`, not the boolean it reads as).
  const shown = (node: BScalar): string => (text ? text.slice(node.range[0], node.range[1]) : String(node.value));
  const model = modelNode.kind === 'scalar' && !isDeferred(modelNode) ? shown(modelNode) : 'app.model';
  const pairs: string[] = [];
  if (run.length % 2 === 0) {
    for (let i = 0; i < run.length; i += 2) pairs.push(`[${shown(run[i]!)}, ${shown(run[i + 1]!)}]`);
  } else pairs.push('[field, value]', '...');
  const message = `${tag} takes [field, value] pairs after the model, not flat arguments: write ${tag} [${model}, ${pairs.join(', ')}].`;
  return problem(codes, 'tag-find-shape', [run[0]!.range[0], run[run.length - 1]!.range[1]], message);
}

function checkQuery(tag: string, query: BNode, model: ModelInfo | undefined, problems: Problem[]): void {
  if (query.kind === 'alias') return;
  if (query.tag?.startsWith('!')) {
    const message = `A ${tag} query must be a literal [field, value] pair: the service does not resolve ${query.tag} in its place.`;
    problems.push(problem(codes, 'tag-find-shape', query.range, message));
    return;
  }
  if (query.kind === 'map') {
    const [only] = query.entries;
    const written =
      query.entries.length === 1 && only!.key.kind === 'scalar' && only!.value.kind === 'scalar'
        ? `: write [${String(only!.key.value)}, ${String(only!.value.value)}]`
        : '';
    const message = `A ${tag} query is a [field, value] pair, not a mapping${written}.`;
    problems.push(problem(codes, 'tag-find-shape', query.range, message));
    return;
  }
  if (query.kind !== 'seq') return;
  if (query.items.length !== 2) {
    const count = query.items.length === 1 ? '1 item' : `${query.items.length} items`;
    const message = `A ${tag} query is a [field, value] pair, but this one has ${count}.`;
    problems.push(problem(codes, 'tag-find-shape', query.range, message));
    return;
  }
  const field = query.items[0]!;
  if (model && field.kind === 'scalar' && !isDeferred(field) && typeof field.value === 'string') {
    checkField(field, field.value, model, problems);
  }
}

/** `name__iexact`, `flow__slug`: the part before the first `__` is a field of the model; the rest is Django's. */
function checkField(node: BScalar, written: string, model: ModelInfo, problems: Problem[]): void {
  const name = written.split('__')[0]!;
  if (name === primaryKeyAlias || model.fieldNames.includes(name)) return;
  const readOnly = readOnlyFields(model.name);
  if (readOnly?.includes(name)) return;
  const suggestion = suggest(name, readOnly ? [...model.fieldNames, ...readOnly] : model.fieldNames);
  const lookup = written.slice(name.length);
  const within = lookup ? ` (in '${written}')` : '';
  const found = readOnly
    ? problem(
        codes,
        'tag-find-field-unknown',
        node.range,
        `${model.name} has no field '${name}'${within}.${hint(suggestion)}`,
      )
    : problem(
        codes,
        'tag-find-field-unlisted',
        node.range,
        `${model.name} has no writable field '${name}'${within}; it may be read-only.${hint(suggestion)}`,
      );
  problems.push(
    suggestion ? withFix(found, `Change to '${suggestion}${lookup}'`, node.range, suggestion + lookup) : found,
  );
}
