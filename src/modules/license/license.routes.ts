/** The license, at the paths of legacy (/api/v1/license) and new (/api/license) cbapi (reference admin §9.2). */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { LicenseService } from './license.service.js';
import { LicenseStatus, LicenseUploadBody } from './license.schemas.js';

export const licenseRoutes: FastifyPluginAsyncTypebox<{ license: LicenseService }> = async (app, { license }) => {
  const tags = ['license'];
  for (const path of ['/api/license', '/api/v1/license']) {
    app.get(path, {
      schema: {
        tags, summary: 'The license: always valid and unlimited (Vigil needs none), with the real sensor count',
        response: { 200: LicenseStatus },
      },
    }, (request) => license.status(request.principal));

    app.post(path, {
      schema: {
        tags, summary: 'Upload a license (global admin): always refused, since Vigil needs none',
        body: LicenseUploadBody,
      },
    }, (request) => license.upload(request.principal, request.body));
  }
};
