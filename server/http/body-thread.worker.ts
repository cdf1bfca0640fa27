/**
 * The thread of `body-thread.ts`: the contract's request validator of its own, built from the
 * document it is given; each job's body is read and its request checked here, and only the
 * outcome goes back: with the bulk text's bytes (moved, not copied), or where its store kept them.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { Operation } from 'openapi-backend';
import { movable, THREAD_READY, type BodyJob, type BodyJobResult, type StoreUpload } from './body-thread.ts';
import type { OpenApiDocument } from './openapi-document.ts';
import { checkJsonRequest, createRequestValidator, operationCheck, type OperationCheck } from './request-check.ts';

const api = await createRequestValidator((workerData as { document: OpenApiDocument }).document);
const checks = new Map<string, OperationCheck>();
const stores = new Map<string, Promise<StoreUpload>>();

function storeOf(module: string): Promise<StoreUpload> {
  let store = stores.get(module);
  if (!store)
    stores.set(module, (store = import(module).then((loaded: { storeUpload: StoreUpload }) => loaded.storeUpload)));
  return store;
}

parentPort!.on('message', async ({ id, operationId, request, bytes, bulk }: BodyJob) => {
  let result: BodyJobResult;
  const moved: ArrayBuffer[] = [];
  try {
    let check = checks.get(operationId);
    if (!check) checks.set(operationId, (check = operationCheck(api, api.getOperation(operationId) as Operation)));
    const checked = checkJsonRequest(check, request, bytes, bulk?.field);
    if ('text' in checked && checked.text) {
      const stored = bulk?.store && (await (await storeOf(bulk.store.module))(checked.text, bulk.store.options));
      if (stored) {
        checked.stored = stored;
        delete checked.text;
      } else {
        checked.text = movable(checked.text);
        moved.push(checked.text.buffer as ArrayBuffer);
      }
    }
    result = { id, check: checked };
  } catch (error) {
    const code = (error as { code?: unknown } | undefined)?.code;
    result = { id, error: String(error), ...(typeof code === 'string' ? { code } : {}) };
  }
  parentPort!.postMessage(result, moved);
});
parentPort!.postMessage(THREAD_READY);
