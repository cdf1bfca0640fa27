/**
 * The thread of `body-thread.ts`: the contract's request validator of its own, built from the
 * document it is given; each job's body is read and its request checked here, and only the
 * outcome goes back.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { Operation } from 'openapi-backend';
import { movable, THREAD_READY, type BodyJob, type BodyJobResult } from './body-thread.ts';
import type { OpenApiDocument } from './openapi-document.ts';
import { checkJsonRequest, createRequestValidator, operationCheck, type OperationCheck } from './request-check.ts';

const api = await createRequestValidator((workerData as { document: OpenApiDocument }).document);
const checks = new Map<string, OperationCheck>();

parentPort!.on('message', ({ id, operationId, request, bytes, textField }: BodyJob) => {
  let result: BodyJobResult;
  const moved: ArrayBuffer[] = [];
  try {
    let check = checks.get(operationId);
    if (!check) checks.set(operationId, (check = operationCheck(api, api.getOperation(operationId) as Operation)));
    const checked = checkJsonRequest(check, request, bytes, textField);
    // The text's bytes move to the event loop's thread rather than being copied there.
    if ('text' in checked && checked.text) {
      checked.text = movable(checked.text);
      moved.push(checked.text.buffer as ArrayBuffer);
    }
    result = { id, check: checked };
  } catch (error) {
    result = { id, error: String(error) };
  }
  parentPort!.postMessage(result, moved);
});
parentPort!.postMessage(THREAD_READY);
