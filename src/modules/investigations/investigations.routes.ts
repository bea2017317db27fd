/**
 * Investigations and tagged events at the paths cbapi and the legacy bindings use (reference admin
 * §9.3). Note Carbon Black's odd pairing, which cbapi relies on: GET /api/tagged_event/{id} takes
 * an investigation id and lists its events (cbapi's TaggedEvent query), while PUT and DELETE on
 * the same path take a tagged event's own id (legacy event_update and event_del).
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { CreatedId, ResultSuccess } from '../../http/schemas.js';
import type { InvestigationsService } from './investigations.service.js';
import {
  IdParams, Investigation, InvestigationCreateBody, InvestigationUpdateBody, ProcessParams, TaggedEvent, TaggedEventCreateBody,
  TaggedEventUpdateBody,
} from './investigations.schemas.js';

export const investigationsRoutes: FastifyPluginAsyncTypebox<{ investigations: InvestigationsService }> = async (app, { investigations }) => {
  const tags = ['investigations'];

  app.get('/api/investigations', {
    schema: { tags, summary: 'List investigations', response: { 200: Type.Array(Investigation) } },
  }, () => investigations.list());

  app.post('/api/investigations', {
    schema: { tags, summary: 'Create an investigation; answers its id', body: InvestigationCreateBody, response: { 200: CreatedId } },
  }, (request) => investigations.create(request.principal, request.body));

  app.get('/api/investigations/:id', {
    schema: { tags, summary: 'Read an investigation', params: IdParams, response: { 200: Investigation } },
  }, (request) => investigations.get(request.params.id));

  app.put('/api/investigations/:id', {
    schema: {
      tags, summary: 'Rename an investigation or change its notes (its creator or a global admin)',
      params: IdParams, body: InvestigationUpdateBody, response: { 200: ResultSuccess },
    },
  }, (request) => investigations.update(request.principal, request.params.id, request.body));

  app.delete('/api/investigations/:id', {
    schema: {
      tags, summary: 'Delete an investigation and its tagged events (its creator or a global admin); the Default Investigation (1) stays',
      params: IdParams, response: { 200: ResultSuccess },
    },
  }, (request) => investigations.delete(request.principal, request.params.id));

  app.post('/api/tagged_event', {
    schema: {
      tags, summary: 'Tag a process\'s event (or, without unique_id, a note) into an investigation',
      body: TaggedEventCreateBody, response: { 200: TaggedEvent },
    },
  }, (request) => investigations.tag(request.principal, request.body));

  app.get('/api/tagged_event/:id', {
    schema: {
      tags, summary: 'The tagged events of the investigation with this id, that the caller can see',
      params: IdParams, response: { 200: Type.Array(TaggedEvent) },
    },
  }, (request) => investigations.taggedEventsOf(request.principal, request.params.id));

  app.put('/api/tagged_event/:id', {
    schema: {
      tags, summary: 'Change the tagged event with this id (whoever tagged it or a global admin)',
      params: IdParams, body: TaggedEventUpdateBody, response: { 200: TaggedEvent },
    },
  }, (request) => investigations.updateTaggedEvent(request.principal, request.params.id, request.body));

  app.delete('/api/tagged_event/:id', {
    schema: {
      tags, summary: 'Remove the tagged event with this id (whoever tagged it or a global admin)',
      params: IdParams, response: { 200: ResultSuccess },
    },
  }, (request) => investigations.untag(request.principal, request.params.id));

  app.get('/api/tagged_events/:proc_id', {
    schema: {
      tags, summary: 'The tagged events of a process (its id, or a document unique_id), that the caller can see',
      params: ProcessParams, response: { 200: Type.Array(TaggedEvent) },
    },
  }, (request) => investigations.taggedEventsOn(request.principal, request.params.proc_id));
};
