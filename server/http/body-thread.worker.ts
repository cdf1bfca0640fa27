/**
 * The thread of `body-thread.ts`: the contract's request validator of its own, built from the
 * document it is given; each job's body is read and its request checked here, and only the
 * outcome goes back.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { Operation } from 'openapi-backend';
import { THREAD_READY, type BodyJob, type BodyJobResult } from './body-thread.ts';
import type { OpenApiDocument } from './openapi-document.ts';
import { checkJsonRequest, createRequestValidator } from './request-check.ts';

const api = await createRequestValidator((workerData as { document: OpenApiDocument }).document);

parentPort!.on('message', ({ id, operationId, request, bytes }: BodyJob) => {
  let result: BodyJobResult;
  try {
    const operation = api.getOperation(operationId) as Operation;
    result = { id, check: checkJsonRequest(api, operation, request, bytes) };
  } catch (error) {
    result = { id, error: String(error) };
  }
  parentPort!.postMessage(result);
});
parentPort!.postMessage(THREAD_READY);
