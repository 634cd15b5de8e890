// Package rsm is the service core on Raft: what every replicated service
// needs between its RPC handlers and its state, written once.
//
// A service supplies a StateMachine (Apply a command and return its result;
// Snapshot and Restore its own state) and a Codec for its commands and
// results. A Server then:
//
//   - submits a command to Raft and calls back with its result once it is
//     applied, or with ok false when it cannot say (this node does not or no
//     longer leads, another leader's entry took the index, a snapshot
//     covered it): the clerk then tries elsewhere with the same session;
//   - executes each client request at most once: a request names a Session
//     (client ID and a sequence number that grows with each request), and a
//     retry of an applied request gets the stored result instead of running
//     again; the session table is kept in snapshots;
//   - snapshots once Raft's persisted state reaches Config.MaxRaftState;
//   - serves read-only commands through the log, by ReadIndex, or under the
//     leader's lease (Config.Reads), once the state has caught up.
//
// Raft tells the Server when it loses leadership (raftapi.LeadershipWatcher),
// so waiting requests are answered at once instead of at the next poll.
//
// A Clerk is the client side: it remembers which server led last, moves on
// to the next on a wrong-leader answer, a lost message or a timeout, and
// retries with the same session, so that each operation takes effect once.
// Told of a Directory (Router.Discover), it asks the directory for the
// leader instead of trying the next server: paper 003's replica manager,
// which each group's leader tells of itself (Server.Announce).
package rsm
