import path from 'node:path';
import { main } from '../../language-server/src/server-main.ts';

// The entry of the bundled server (`dist/server.js`, CommonJS): the schema ships beside it, so a
// server started without BLUEPRINT_SCHEMA (e.g. `node dist/server.js --stdio`) still finds one.
process.env.BLUEPRINT_SCHEMA ??= path.join(__dirname, 'blueprint.schema.json');
main();
