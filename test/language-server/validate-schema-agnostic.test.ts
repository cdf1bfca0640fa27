import { describe, expect, it } from 'vitest';
import { createLanguageService } from '../../language-server/src/service/language-service.ts';
import { createSchemaIndex } from '../../language-server/src/service/schema/schema-index.ts';
import { acmeShopSchema as schema } from './acme-shop-schema.ts';
import { marked } from './helpers.ts';

const service = createLanguageService({ schema });

describe('another schema of the same shape', () => {
  it('is indexed from its structure only', () => {
    const index = createSchemaIndex(schema);
    expect(index.title).toBe('acme 1.0 shop schema');
    expect(index.modelNames).toEqual(['acme_shop.widget', 'acme_shop.gadget']);
    expect(index.stateValues).toEqual(['gone', 'here']);
    expect(index.topLevelKeys).toEqual(['version', 'metadata', 'entries']);
    const widget = index.models.get('acme_shop.widget')!;
    expect([widget.fieldNames, widget.permissionCodenames, widget.identifiersRequired]).toEqual([
      ['sku', 'size'],
      ['see_widget'],
      true,
    ]);
    expect(index.models.get('acme_shop.gadget')!.identifiersRequired).toBe(false);
    expect(index.lookupModel('ACME_SHOP.Widget')).toMatchObject({ caseMismatch: true });
  });

  const cases: [string, string, string][] = [
    [
      'version: 1\nentries:\n  - model: «acme_shop.widgt»\n    identifiers: {sku: a}',
      'model-unknown',
      "Unknown model 'acme_shop.widgt'. Did you mean 'acme_shop.widget'?",
    ],
    [
      'version: 1\nentries:\n  - model: acme_shop.widget\n    identifiers: {sku: a, size: «11»}',
      'field-invalid',
      'size must be at most 10.',
    ],
    [
      'version: 1\nentries:\n  - model: acme_shop.widget\n    identifiers: {«siz»: 1}',
      'field-unknown',
      "acme_shop.widget has no field 'siz'; the service ignores it. Did you mean 'size'?",
    ],
    [
      'version: 1\nentries:\n  - model: acme_shop.widget\n    identifiers: {sku: a}\n    state: «her»',
      'state-invalid',
      "state must be one of: gone, here. Did you mean 'here'?",
    ],
    [
      'version: 1\nentries:\n  - model: acme_shop.gadget\n    «identifiers»: {colour: red}',
      'entry-unknown-key',
      "An entry of acme_shop.gadget has no key 'identifiers'.",
    ],
    [
      'version: 1\nentries:\n  - model: acme_shop.gadget\n    attrs: {colour: «green»}',
      'field-invalid',
      'colour must be one of: red, blue.',
    ],
    [
      'version: 1\nentries:\n  - model: acme_shop.gadget\n    permissions: [{permission: «see_gadgt»}]',
      'permission-unknown',
      "acme_shop.gadget has no permission 'see_gadgt'. Did you mean 'see_gadget'?",
    ],
    [
      'version: 1\nentries:\n  - model: «Acme_shop.widget»\n    identifiers: {sku: a}',
      'model-case-strict',
      "'Acme_shop.widget' is not found: the app label is case-sensitive. Write acme_shop.widget.",
    ],
    [
      'version: 1\nentries:\n  - model: «acme_shop.Gadget»\n    attrs: {colour: red}',
      'model-case-strict',
      "'acme_shop.Gadget' is not found: the model name is case-sensitive. Write acme_shop.gadget.",
    ],
    [
      'version: 1\nentries:\n  - model: acme_shop.widget\n    identifiers: {pk: 4, size: «"3"»}',
      'field-number-quoted',
      'size is written as the string "3"; the schema wants a number. Write 3 unquoted; the service converts it.',
    ],
  ];
  it.each(cases)('%s', (source, code, message) => {
    const { text, range } = marked(source);
    expect(service.doValidation(text).map(({ code, message, range }) => ({ code, message, range }))).toEqual([
      { code, message, range },
    ]);
  });

  it('accepts a valid file', () => {
    const text =
      'version: 1\nentries:\n  - model: acme_shop.widget\n    identifiers: {sku: a}\n    attrs: {size: 3}\n' +
      '    permissions: [{permission: acme_shop.see_widget, user: 1}]\n  - model: acme_shop.gadget\n    attrs: {colour: red}\n';
    expect(service.doValidation(text)).toEqual([]);
  });
});
