/// A sink that can fall behind the phones (the store, whose writer commits what they observed)
/// and says so: while it reports a backlog, the pipeline holds the deliveries that only keep its
/// queue short (`DeliveryPipeline.heed`), rather than have the sink drop or shed observations.
public protocol DeliveryBacklog: AnyObject, Sendable {
    /// From now on `report(true)` when as much waits as the sink may hold, `report(false)` when
    /// it has caught up; each change once. Nil stops the reports (and lets go of any hold).
    func reportBacklog(to report: (@Sendable (_ backedUp: Bool) -> Void)?)
}
