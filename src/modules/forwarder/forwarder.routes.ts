/** The event forwarder's outputs, for global administrators (a Vigil resource; docs/forwarder.md). */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { ForwarderService } from './forwarder.service.js';
import { Output, OutputBody, OutputParams, OutputStatus, Success } from './forwarder.schemas.js';

export const forwarderRoutes: FastifyPluginAsyncTypebox<{ forwarder: ForwarderService }> = async (app, { forwarder }) => {
  const tags = ['forwarder'];
  const base = '/api/v1/forwarder/outputs';

  app.get(base, {
    schema: { tags, summary: 'The forwarder\'s outputs (global administrators)', response: { 200: Type.Array(Output) } },
  }, (request) => forwarder.list(request.principal));

  app.post(base, {
    schema: { tags, summary: 'Add an output: records of the chosen sources go to a file, syslog or HTTP(S) from now on', body: OutputBody, response: { 200: Output } },
  }, (request) => forwarder.create(request.principal, request.body));

  app.post(`${base}/test`, {
    schema: { tags, summary: 'Send a test record through an output before saving it; 400 with the receiver\'s error when it does not arrive', body: OutputBody, response: { 200: Success } },
  }, (request) => forwarder.testProposed(request.principal, request.body));

  app.get(`${base}/:id`, {
    schema: { tags, summary: 'One output', params: OutputParams, response: { 200: Output } },
  }, (request) => forwarder.get(request.principal, request.params.id));

  app.put(`${base}/:id`, {
    schema: { tags, summary: 'Change an output; its cursors stay where they are', params: OutputParams, body: OutputBody, response: { 200: Output } },
  }, (request) => forwarder.update(request.principal, request.params.id, request.body));

  app.delete(`${base}/:id`, {
    schema: { tags, summary: 'Remove an output and its cursors', params: OutputParams, response: { 200: Success } },
  }, (request) => forwarder.remove(request.principal, request.params.id));

  app.get(`${base}/:id/status`, {
    schema: { tags, summary: 'Per source: records delivered, how far behind the newest record the cursor is, the last success and the last error', params: OutputParams, response: { 200: OutputStatus } },
  }, (request) => forwarder.status(request.principal, request.params.id));

  app.post(`${base}/:id/test`, {
    schema: { tags, summary: 'Send a test record through the saved output; 400 with the receiver\'s error when it does not arrive', params: OutputParams, response: { 200: Success } },
  }, (request) => forwarder.testSaved(request.principal, request.params.id));
};
