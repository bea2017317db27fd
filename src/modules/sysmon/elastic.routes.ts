/**
 * An Elasticsearch-compatible endpoint under /ingest/elastic for Winlogbeat, Elastic Agent and
 * Vector (their `hosts`/`endpoints` setting points here; docs/sysmon.md). Every route takes a
 * group's ingest key only, and every answer says it comes from "Elasticsearch", which the 8.x
 * clients check before they believe anything else.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyReply } from 'fastify';
import type { ElasticCompatService } from './elastic.service.js';
import { readRawBodies } from './sysmon.routes.js';

const PREFIX = '/ingest/elastic';
const Anything = Type.Record(Type.String(), Type.Unknown());
const NameParams = Type.Object({ name: Type.String({ maxLength: 255 }) });
const IndexParams = Type.Object({ index: Type.String({ maxLength: 255, pattern: '^[^_/][^/]*$' }) });
const BulkQuery = Type.Object({
  filter_path: Type.Optional(Type.String({ maxLength: 1024, description: 'Beats\' `errors,items.*.error,items.*.status` answers each item with its status (and error) alone' })),
});

export const elasticRoutes: FastifyPluginAsyncTypebox<{ elastic: ElasticCompatService; bodyLimitBytes: number }> = async (app, { elastic, bodyLimitBytes }) => {
  const tags = ['sysmon ingest (Elasticsearch-compatible)'];
  const security = [{ ingestKey: [] }];
  const config = { auth: 'ingest' as const };
  readRawBodies(app, bodyLimitBytes);
  app.addHook('onSend', async (_request, reply) => {
    reply.header('x-elastic-product', 'Elasticsearch');
  });

  app.get(PREFIX, { config, schema: { tags, security, summary: 'Cluster facts clients read to choose their protocol', response: { 200: Anything } } },
    () => elastic.info());
  app.get(`${PREFIX}/_license`, { config, schema: { tags, security, summary: 'A basic licence, as Beats check', response: { 200: Anything } } },
    () => elastic.license());
  app.get(`${PREFIX}/_cluster/health`, { config, schema: { tags, security, summary: 'Always green: Vector\'s health check', response: { 200: Anything } } },
    () => elastic.health());

  for (const [path, kind] of [['_index_template', 'index_template'], ['_template', 'template'], ['_ilm/policy', 'policy']] as const) {
    app.get(`${PREFIX}/${path}/:name`, {
      config, schema: { tags, security, summary: `A ${kind.replace('_', ' ')} "exists", so clients do not install it`, params: NameParams, response: { 200: Anything } },
    }, (request) => elastic.stored(kind, request.params.name));
    app.put(`${PREFIX}/${path}/:name`, {
      config, schema: { tags, security, summary: `Installing a ${kind.replace('_', ' ')} is acknowledged; Vigil keeps no indices`, params: NameParams, response: { 200: Anything } },
    }, () => elastic.acknowledge());
  }

  const bulkSchema = {
    tags, security, consumes: ['application/x-ndjson', 'application/json'], querystring: BulkQuery,
    summary: 'Sysmon events from Winlogbeat, Elastic Agent or Vector (gzip allowed), answered item by item as Elasticsearch does',
    response: { 200: Type.Object({ took: Type.Optional(Type.Integer()), errors: Type.Boolean(), items: Type.Array(Anything) }) },
  };
  for (const method of ['POST', 'PUT'] as const) {
    app.route({
      method, url: `${PREFIX}/_bulk`, config, bodyLimit: bodyLimitBytes, schema: bulkSchema,
      handler: async (request, reply) => sendJson(reply,
        await elastic.bulk(request.ingestKey, bodyOf(request.body), request.headers['content-encoding'], undefined, request.query.filter_path)),
    });
    app.route({
      method, url: `${PREFIX}/:index/_bulk`, config, bodyLimit: bodyLimitBytes, schema: { ...bulkSchema, params: IndexParams },
      handler: async (request, reply) => sendJson(reply,
        await elastic.bulk(request.ingestKey, bodyOf(request.body), request.headers['content-encoding'], (request.params as { index: string }).index, request.query.filter_path)),
    });
  }
};

const bodyOf = (body: unknown): Buffer => (Buffer.isBuffer(body) ? body : Buffer.alloc(0));

/** Text already serialized (the bulk reply): sent as it is, the schema documenting its shape. */
function sendJson(reply: FastifyReply, text: string): FastifyReply {
  return reply.type('application/json; charset=utf-8').send(text);
}
