/** One task of the plan the model keeps with the todo_write tool (record.plan, the checkpoint, the API). */
export interface PlanTask {
  id: string;
  content: string;
  status: 'pending' | 'in_progress' | 'completed';
}
