import type { ApiResponse } from './contract-client.ts';
import { HOUSEHOLD_PASSWORD } from './households.ts';
import type { TestServer } from './test-server.ts';

/** A phone as the app describes it; `id` tells installations apart. */
export function device(id = 'device-1') {
  return { device_id: id, device_name: `Phone ${id}`, device_type: 'ios', os_version: '17.4', app_version: '1.8.0' };
}

/** `POST /api/v1/auth/login` with the household password unless another is given. */
export function login(
  server: TestServer,
  email: string,
  options: { password?: string; otp_code?: string; device?: object | undefined; headers?: Record<string, string> } = {},
): Promise<ApiResponse> {
  const body: Record<string, unknown> = { email, password: options.password ?? HOUSEHOLD_PASSWORD };
  if (options.otp_code !== undefined) body.otp_code = options.otp_code;
  body.device = 'device' in options ? options.device : device();
  return server.api.call('login', { body, headers: options.headers });
}

/** The header that carries an access token. */
export function bearer(token: string): Record<string, string> {
  return { authorization: `Bearer ${token}` };
}
