import { problem, schemaCodes, withSuggestions, type Problem } from '../problem.ts';
import type { BNode } from '../reading/blueprint-node.ts';
import { findEntry, firstLine, isDeferred, keyName } from '../reading/node-queries.ts';
import { isObject, nearest, type ModelInfo } from '../schema/schema-index.ts';
import { describeType, fitsType } from '../schema/schema-types.ts';
import { suggest } from '../../../../common/spelling.ts';
import { hint } from './suggestions.ts';

const codes = schemaCodes;

/**
 * `permissions: [{permission, user, role}]`. A codename is accepted bare (`view_x`) or qualified
 * with the model's own app (`<app>.view_x`): the service takes both. Qualified with another app
 * it still works (the service grants by codename alone) but misleads the reader: a warning.
 */
export function validatePermissions(node: BNode, model: ModelInfo, problems: Problem[]): void {
  if (isDeferred(node)) return;
  if (node.kind !== 'seq') {
    const message = 'permissions must be a sequence of items like {permission: <codename>, user: <pk>}.';
    problems.push(problem(codes, 'permissions-invalid', node.range, message));
    return;
  }
  const itemProperties = isObject(model.permissionItem?.properties) ? model.permissionItem.properties : {};
  const known = Object.keys(itemProperties);
  for (const item of node.items) {
    if (isDeferred(item)) continue;
    if (item.kind !== 'map') {
      const message = 'Each permissions item must be a mapping like {permission: <codename>, role: <uuid>}.';
      problems.push(problem(codes, 'permissions-invalid', item.range, message));
      continue;
    }
    const permission = findEntry(item, 'permission');
    if (!permission) {
      const message = 'This permissions item has no permission: add permission: <codename>.';
      problems.push(problem(codes, 'permissions-invalid', firstLine(item), message));
    }
    for (const entry of item.entries) {
      const name = keyName(entry);
      if (name === undefined) continue;
      if (!known.includes(name) && known.length > 0) {
        const suggestion = suggest(name, known);
        const message = `A permissions item has no key '${name}'.${hint(suggestion)}`;
        const found = problem(codes, 'permissions-invalid', entry.key.range, message);
        problems.push(withSuggestions(found, entry.key.range, [suggestion]));
        continue;
      }
      if (name === 'permission') {
        checkCodename(entry.value, model, problems);
        continue;
      }
      const type = isObject(itemProperties[name]) ? itemProperties[name].type : undefined;
      if (!fitsType(entry.value, type)) {
        const message = `${name} must be ${describeType(type)}.`;
        problems.push(problem(codes, 'permissions-invalid', entry.value.range, message));
      }
    }
  }
}

function checkCodename(value: BNode, model: ModelInfo, problems: Problem[]): void {
  if (isDeferred(value)) return;
  if (value.kind !== 'scalar' || typeof value.value !== 'string') {
    const message = `permission must be a codename such as '${model.permissionCodenames[0] ?? 'view_<model>'}'.`;
    problems.push(problem(codes, 'permissions-invalid', value.range, message));
    return;
  }
  const codenames = model.permissionCodenames;
  if (codenames.length === 0 || codenames.includes(value.value)) return;
  const dot = value.value.lastIndexOf('.');
  const app = dot >= 0 ? value.value.slice(0, dot) : undefined;
  const bare = dot >= 0 ? value.value.slice(dot + 1) : value.value;
  if (app === model.app && codenames.includes(bare)) return;
  if (app !== undefined && app !== model.app && codenames.includes(bare)) {
    const message = `'${value.value}' names the app ${app}, not ${model.app}; the service uses only the codename. Write '${bare}'.`;
    const found = problem(codes, 'permission-other-app', value.range, message);
    problems.push(withSuggestions(found, value.range, [bare, `${model.app}.${bare}`]));
    return;
  }
  const [suggestion] = nearest(bare, codenames, 1);
  const shown = suggestion === undefined ? '' : app === undefined ? suggestion : `${app}.${suggestion}`;
  const advice = suggestion ? ` Did you mean '${shown}'?` : ` Its permissions are: ${codenames.join(', ')}.`;
  const found = problem(
    codes,
    'permission-unknown',
    value.range,
    `${model.name} has no permission '${value.value}'.${advice}`,
  );
  problems.push(withSuggestions(found, value.range, [shown || undefined]));
}
