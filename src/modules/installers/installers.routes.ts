/**
 * Sensor installer downloads, at Carbon Black's paths (reference core §7.1): a zip for Windows and
 * macOS, a gzipped tar for Linux, as an attachment.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { InvalidRequestError } from '../../domain/errors.js';
import { bytesReply, IntegerId } from '../../http/schemas.js';
import { PLATFORMS, type Platform } from './installer-format.js';
import type { InstallersService } from './installers.service.js';

const Params = Type.Object({ id: IntegerId });

/** A host name, IPv4 or bracketed IPv6 address, and an optional port: all a Host header may say here. */
const HOST = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+)(:\d{1,5})?$/;

/** scheme://host of the request; the Host header is the caller's own, so it is only checked to be a host. */
function originOf(protocol: string, host: string): string {
  if (!HOST.test(host)) throw new InvalidRequestError(`The Host header ${JSON.stringify(host)} is not a host and port; set publicUrl`);
  return `${protocol}://${host}`;
}

export const installersRoutes: FastifyPluginAsyncTypebox<{ installers: InstallersService }> = async (app, { installers }) => {
  for (const platform of Object.keys(PLATFORMS) as Platform[]) {
    const { archive } = PLATFORMS[platform];
    const mediaType = archive === 'zip' ? 'application/zip' : 'application/gzip';
    app.get(`/api/v1/group/:id/installer/${platform}`, {
      schema: {
        tags: ['groups'],
        summary: `Settings package for ${platform} sensors of the group (group administrators): server URL, certificate, install code`,
        params: Params,
        response: { 200: bytesReply(mediaType, `${archive} holding sensor-settings.json, server-cert.pem and README.txt`) },
      },
    }, async (request, reply) => {
      const built = await installers.package(request.principal, request.params.id, platform, originOf(request.protocol, request.host));
      return reply
        .type(built.contentType)
        .header('content-disposition', `attachment; filename="${built.fileName}"`)
        .send(built.content);
    });
  }
};
