/** Storage partitions with their sizes, and the disk forecast (GET /api/v1/storage/events/forecast). */
import { get } from '../api.js';
import { count, when } from '../format.js';
import { useLoad } from '../use-load.js';

interface Partition { name: string; status: string; info: { sizeInBytes: number; numDocs: number; startDate: string; endDate: string | null } }
interface Forecast {
  bytesPerDay: number | null;
  sampleStartDate: string | null;
  sampleDays: number;
  diskTotalBytes: number | null;
  diskFreeBytes: number | null;
  daysUntilFull: number | null;
  reason: string | null;
}

const megabytes = (bytes: number) => `${(bytes / 1_048_576).toFixed(1)} MB`;
const gigabytes = (bytes: number | null) => (bytes === null ? 'unknown' : `${(bytes / 1024 ** 3).toFixed(1)} GB`);

function ForecastFacts({ forecast }: { forecast: Forecast }) {
  return (
    <dl class="facts" aria-label="Disk forecast">
      <dt>Growth</dt>
      <dd>{forecast.bytesPerDay === null ? 'unknown' : `${megabytes(forecast.bytesPerDay)} a day`}
        {forecast.sampleStartDate ? ` (measured over ${forecast.sampleDays} days since ${when(forecast.sampleStartDate)})` : ''}</dd>
      <dt>Disk</dt>
      <dd>{gigabytes(forecast.diskFreeBytes)} free of {gigabytes(forecast.diskTotalBytes)}</dd>
      <dt>Full in</dt>
      <dd>{forecast.daysUntilFull === null ? 'unknown' : `${count(forecast.daysUntilFull)} days`}{forecast.reason ? ` (${forecast.reason})` : ''}</dd>
    </dl>
  );
}

export function PartitionsSection() {
  const partitions = useLoad('partitions', () => get<Record<string, Partition>>('/api/v1/storage/events/partition'));
  const forecast = useLoad('forecast', () => get<Forecast>('/api/v1/storage/events/forecast'));
  return (
    <section aria-labelledby="partitions-heading">
      <h2 id="partitions-heading">Storage partitions</h2>
      {forecast.data && <ForecastFacts forecast={forecast.data} />}
      <table class="results">
        <thead><tr><th scope="col">Partition</th><th scope="col">Status</th><th scope="col">Size</th><th scope="col">Documents</th><th scope="col">From</th><th scope="col">To</th></tr></thead>
        <tbody>{Object.values(partitions.data ?? {}).map((p) => (
          <tr key={p.name}><td>{p.name}</td><td>{p.status}</td><td>{megabytes(p.info.sizeInBytes)}</td><td>{count(p.info.numDocs)}</td><td>{when(p.info.startDate)}</td><td>{when(p.info.endDate)}</td></tr>
        ))}</tbody>
      </table>
    </section>
  );
}
