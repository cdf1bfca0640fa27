/** A tiny schema of the same shape as the generated one, with other names: nothing may be hard-coded. */
function branch(model: string, withIdentifiers: boolean): object {
  return {
    type: 'object',
    required: withIdentifiers ? ['model', 'identifiers'] : ['model'],
    properties: {
      model: { const: model },
      id: { type: 'string' },
      state: { type: 'string', enum: ['gone', 'here'] },
      conditions: { type: 'array', items: { type: 'boolean' } },
      permissions: {
        type: 'array',
        items: {
          type: 'object',
          required: ['permission'],
          properties: {
            permission: { type: 'string', enum: [`see_${model.split('.')[1]}`] },
            user: { type: 'integer' },
          },
        },
      },
      attrs: { $ref: `#/definitions/model_${model}` },
      ...(withIdentifiers ? { identifiers: { $ref: `#/definitions/model_${model}` } } : {}),
    },
  };
}

/** Another release of the same shape (title `acme 1.0 shop schema`, models acme_shop.widget and acme_shop.gadget). */
export const acmeShopSchema = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  title: 'acme 1.0 shop schema',
  type: 'object',
  required: ['version', 'entries'],
  properties: {
    version: { type: 'integer', default: 1 },
    metadata: { type: 'object', required: ['name'] },
    entries: { type: 'array', items: { $ref: '#/definitions/blueprint_entry' } },
  },
  definitions: {
    blueprint_entry: {
      oneOf: [{ $ref: '#/definitions/entry_acme_shop.widget' }, { $ref: '#/definitions/entry_acme_shop.gadget' }],
    },
    'entry_acme_shop.widget': branch('acme_shop.widget', true),
    'entry_acme_shop.gadget': branch('acme_shop.gadget', false),
    'model_acme_shop.widget': {
      type: 'object',
      properties: { sku: { type: 'string', minLength: 1 }, size: { type: 'integer', maximum: 10 } },
      required: [],
    },
    'model_acme_shop.gadget': {
      type: 'object',
      properties: { colour: { type: 'string', enum: ['red', 'blue'] } },
      required: [],
    },
  },
};
