export type Json =
  | string
  | number
  | boolean
  | null
  | { [key: string]: Json | undefined }
  | Json[]

export type Database = {
  // Allows to automatically instantiate createClient with right options
  // instead of createClient<Database, { PostgrestVersion: 'XX' }>(URL, KEY)
  __InternalSupabase: {
    PostgrestVersion: "12.0.2"
  }
  public: {
    Tables: {
      after_hours_replies: {
        Row: {
          canned_reply_id: string
          updated_at: string
          updated_by: string | null
          workspace_id: string
        }
        Insert: {
          canned_reply_id: string
          updated_at?: string
          updated_by?: string | null
          workspace_id: string
        }
        Update: {
          canned_reply_id?: string
          updated_at?: string
          updated_by?: string | null
          workspace_id?: string
        }
        Relationships: [
          {
            foreignKeyName: "after_hours_replies_canned_reply_id_fkey"
            columns: ["canned_reply_id"]
            isOneToOne: false
            referencedRelation: "canned_replies"
            referencedColumns: ["id"]
          },
          {
            foreignKeyName: "after_hours_replies_workspace_id_fkey"
            columns: ["workspace_id"]
            isOneToOne: true
            referencedRelation: "workspaces"
            referencedColumns: ["id"]
          },
        ]
      }
      assignment_settings: {
        Row: {
          last_assignee_id: string | null
          max_open: number | null
          mode: Database["public"]["Enums"]["assignment_mode"]
          workspace_id: string
        }
        Insert: {
          last_assignee_id?: string | null
          max_open?: number | null
          mode?: Database["public"]["Enums"]["assignment_mode"]
          workspace_id: string
        }
        Update: {
          last_assignee_id?: string | null
          max_open?: number | null
          mode?: Database["public"]["Enums"]["assignment_mode"]
          workspace_id?: string
        }
        Relationships: [
          {
            foreignKeyName: "assignment_settings_workspace_id_fkey"
            columns: ["workspace_id"]
            isOneToOne: true
            referencedRelation: "workspaces"
            referencedColumns: ["id"]
          },
        ]
      }
      attachments: {
        Row: {
          created_at: string
          file_name: string
          id: string
          message_id: string
          mime_type: string
          path: string
          size: number
          ticket_id: string
          uploader_id: string
          workspace_id: string
        }
        Insert: {
          created_at?: string
          file_name: string
          id: string
          message_id: string
          mime_type: string
          path: string
          size: number
          ticket_id: string
          uploader_id: string
          workspace_id: string
        }
        Update: {
          created_at?: string
          file_name?: string
          id?: string
          message_id?: string
          mime_type?: string
          path?: string
          size?: number
          ticket_id?: string
          uploader_id?: string
          workspace_id?: string
        }
        Relationships: [
          {
            foreignKeyName: "attachments_message_id_fkey"
            columns: ["message_id"]
            isOneToOne: false
            referencedRelation: "messages"
            referencedColumns: ["id"]
          },
          {
            foreignKeyName: "attachments_ticket_id_fkey"
            columns: ["ticket_id"]
            isOneToOne: false
            referencedRelation: "tickets"
            referencedColumns: ["id"]
          },
          {
            foreignKeyName: "attachments_workspace_id_fkey"
            columns: ["workspace_id"]
            isOneToOne: false
            referencedRelation: "workspaces"
            referencedColumns: ["id"]
          },
        ]
      }
      business_hours: {
        Row: {
          closes: string
          opens: string
          weekday: number
          workspace_id: string
        }
        Insert: {
          closes: string
          opens: string
          weekday: number
          workspace_id: string
        }
        Update: {
          closes?: string
          opens?: string
          weekday?: number
          workspace_id?: string
        }
        Relationships: [
          {
            foreignKeyName: "business_hours_workspace_id_fkey"
            columns: ["workspace_id"]
            isOneToOne: false
            referencedRelation: "workspaces"
            referencedColumns: ["id"]
          },
        ]
      }
      canned_replies: {
        Row: {
          body: string
          created_at: string
          created_by: string | null
          id: string
          title: string
          updated_at: string | null
          updated_by: string | null
          workspace_id: string
        }
        Insert: {
          body: string
          created_at?: string
          created_by?: string | null
          id?: string
          title: string
          updated_at?: string | null
          updated_by?: string | null
          workspace_id: string
        }
        Update: {
          body?: string
          created_at?: string
          created_by?: string | null
          id?: string
          title?: string
          updated_at?: string | null
          updated_by?: string | null
          workspace_id?: string
        }
        Relationships: [
          {
            foreignKeyName: "canned_replies_workspace_id_fkey"
            columns: ["workspace_id"]
            isOneToOne: false
            referencedRelation: "workspaces"
            referencedColumns: ["id"]
          },
        ]
      }
      companies: {
        Row: {
          domain: string
          name: string
          updated_at: string
          updated_by: string | null
          workspace_id: string
        }
        Insert: {
          domain: string
          name: string
          updated_at?: string
          updated_by?: string | null
          workspace_id: string
        }
        Update: {
          domain?: string
          name?: string
          updated_at?: string
          updated_by?: string | null
          workspace_id?: string
        }
        Relationships: [
          {
            foreignKeyName: "companies_workspace_id_fkey"
            columns: ["workspace_id"]
            isOneToOne: false
            referencedRelation: "workspaces"
            referencedColumns: ["id"]
          },
        ]
      }
      csat_settings: {
        Row: {
          enabled: boolean
          question: string
          updated_at: string
          updated_by: string | null
          workspace_id: string
        }
        Insert: {
          enabled?: boolean
          question?: string
          updated_at?: string
          updated_by?: string | null
          workspace_id: string
        }
        Update: {
          enabled?: boolean
          question?: string
          updated_at?: string
          updated_by?: string | null
          workspace_id?: string
        }
        Relationships: [
          {
            foreignKeyName: "csat_settings_workspace_id_fkey"
            columns: ["workspace_id"]
            isOneToOne: true
            referencedRelation: "workspaces"
            referencedColumns: ["id"]
          },
        ]
      }
      csat_surveys: {
        Row: {
          assignee_id: string | null
          comment: string | null
          created_at: string
          expires_at: string
          id: string
          question: string
          rated_at: string | null
          rating: Database["public"]["Enums"]["csat_rating"] | null
          requester_id: string
          ticket_id: string
          workspace_id: string
        }
        Insert: {
          assignee_id?: string | null
          comment?: string | null
          created_at?: string
          expires_at?: string
          id?: string
          question: string
          rated_at?: string | null
          rating?: Database["public"]["Enums"]["csat_rating"] | null
          requester_id: string
          ticket_id: string
          workspace_id: string
        }
        Update: {
          assignee_id?: string | null
          comment?: string | null
          created_at?: string
          expires_at?: string
          id?: string
          question?: string
          rated_at?: string | null
          rating?: Database["public"]["Enums"]["csat_rating"] | null
          requester_id?: string
          ticket_id?: string
          workspace_id?: string
        }
        Relationships: [
          {
            foreignKeyName: "csat_surveys_ticket_id_fkey"
            columns: ["ticket_id"]
            isOneToOne: false
            referencedRelation: "tickets"
            referencedColumns: ["id"]
          },
          {
            foreignKeyName: "csat_surveys_workspace_id_fkey"
            columns: ["workspace_id"]
            isOneToOne: false
            referencedRelation: "workspaces"
            referencedColumns: ["id"]
          },
        ]
      }
      customer_note_versions: {
        Row: {
          body: string
          id: number
          note_id: string
          workspace_id: string
          written_at: string
          written_by: string | null
        }
        Insert: {
          body: string
          id?: never
          note_id: string
          workspace_id: string
          written_at: string
          written_by?: string | null
        }
        Update: {
          body?: string
          id?: never
          note_id?: string
          workspace_id?: string
          written_at?: string
          written_by?: string | null
        }
        Relationships: [
          {
            foreignKeyName: "customer_note_versions_note_id_fkey"
            columns: ["note_id"]
            isOneToOne: false
            referencedRelation: "customer_notes"
            referencedColumns: ["id"]
          },
          {
            foreignKeyName: "customer_note_versions_workspace_id_fkey"
            columns: ["workspace_id"]
            isOneToOne: false
            referencedRelation: "workspaces"
            referencedColumns: ["id"]
          },
        ]
      }
      customer_notes: {
        Row: {
          body: string
          created_at: string
          created_by: string | null
          customer_id: string
          id: string
          updated_at: string | null
          updated_by: string | null
          workspace_id: string
        }
        Insert: {
          body: string
          created_at?: string
          created_by?: string | null
          customer_id: string
          id?: string
          updated_at?: string | null
          updated_by?: string | null
          workspace_id: string
        }
        Update: {
          body?: string
          created_at?: string
          created_by?: string | null
          customer_id?: string
          id?: string
          updated_at?: string | null
          updated_by?: string | null
          workspace_id?: string
        }
        Relationships: [
          {
            foreignKeyName: "customer_notes_workspace_id_customer_id_fkey"
            columns: ["workspace_id", "customer_id"]
            isOneToOne: false
            referencedRelation: "customers"
            referencedColumns: ["workspace_id", "user_id"]
          },
        ]
      }
      customers: {
        Row: {
          company: string | null
          created_at: string
          email: string
          email_key: string | null
          name: string
          name_key: string | null
          tickets: number
          time_zone: string | null
          user_id: string
          workspace_id: string
        }
        Insert: {
          company?: never
          created_at?: string
          email: string
          email_key?: never
          name: string
          name_key?: never
          tickets?: number
          time_zone?: string | null
          user_id: string
          workspace_id: string
        }
        Update: {
          company?: never
          created_at?: string
          email?: string
          email_key?: never
          name?: string
          name_key?: never
          tickets?: number
          time_zone?: string | null
          user_id?: string
          workspace_id?: string
        }
        Relationships: [
          {
            foreignKeyName: "customers_user_profile_fkey"
            columns: ["user_id"]
            isOneToOne: false
            referencedRelation: "profiles"
            referencedColumns: ["user_id"]
          },
          {
            foreignKeyName: "customers_workspace_id_fkey"
            columns: ["workspace_id"]
            isOneToOne: false
            referencedRelation: "workspaces"
            referencedColumns: ["id"]
          },
        ]
      }
      email_deliveries: {
        Row: {
          attempts: number
          claimed_at: string
          created_at: string
          last_error: string | null
          message_id: string
          recipient: string
          sent_at: string | null
          status: string
          ticket_id: string | null
        }
        Insert: {
          attempts?: number
          claimed_at?: string
          created_at?: string
          last_error?: string | null
          message_id: string
          recipient: string
          sent_at?: string | null
          status?: string
          ticket_id?: string | null
        }
        Update: {
          attempts?: number
          claimed_at?: string
          created_at?: string
          last_error?: string | null
          message_id?: string
          recipient?: string
          sent_at?: string | null
          status?: string
          ticket_id?: string | null
        }
        Relationships: [
          {
            foreignKeyName: "email_deliveries_ticket_id_fkey"
            columns: ["ticket_id"]
            isOneToOne: false
            referencedRelation: "tickets"
            referencedColumns: ["id"]
          },
        ]
      }
      email_sign_in_links: {
        Row: {
          created_at: string
          expires_at: string
          next: string
          token_hash: string
          used_at: string | null
          user_id: string
        }
        Insert: {
          created_at?: string
          expires_at?: string
          next: string
          token_hash: string
          used_at?: string | null
          user_id: string
        }
        Update: {
          created_at?: string
          expires_at?: string
          next?: string
          token_hash?: string
          used_at?: string | null
          user_id?: string
        }
        Relationships: []
      }
      email_unsubscribes: {
        Row: {
          created_at: string
          user_id: string
        }
        Insert: {
          created_at?: string
          user_id: string
        }
        Update: {
          created_at?: string
          user_id?: string
        }
        Relationships: []
      }
      help_article_views: {
        Row: {
          article_id: number
          day: string
          views: number
          workspace_id: string
        }
        Insert: {
          article_id: number
          day: string
          views?: number
          workspace_id: string
        }
        Update: {
          article_id?: number
          day?: string
          views?: number
          workspace_id?: string
        }
        Relationships: [
          {
            foreignKeyName: "help_article_views_article_id_fkey"
            columns: ["article_id"]
            isOneToOne: false
            referencedRelation: "help_articles"
            referencedColumns: ["id"]
          },
          {
            foreignKeyName: "help_article_views_workspace_id_fkey"
            columns: ["workspace_id"]
            isOneToOne: false
            referencedRelation: "workspaces"
            referencedColumns: ["id"]
          },
        ]
      }
      help_article_votes: {
        Row: {
          article_id: number
          helpful: boolean
          visitor_id: string
          voted_at: string
          workspace_id: string
        }
        Insert: {
          article_id: number
          helpful: boolean
          visitor_id: string
          voted_at?: string
          workspace_id: string
        }
        Update: {
          article_id?: number
          helpful?: boolean
          visitor_id?: string
          voted_at?: string
          workspace_id?: string
        }
        Relationships: [
          {
            foreignKeyName: "help_article_votes_article_id_fkey"
            columns: ["article_id"]
            isOneToOne: false
            referencedRelation: "help_articles"
            referencedColumns: ["id"]
          },
          {
            foreignKeyName: "help_article_votes_workspace_id_fkey"
            columns: ["workspace_id"]
            isOneToOne: false
            referencedRelation: "workspaces"
            referencedColumns: ["id"]
          },
        ]
      }
      help_articles: {
        Row: {
          author_id: string | null
          body: string
          body_text: string
          collection_id: string | null
          created_at: string
          id: number
          position: number
          published_at: string | null
          search: unknown
          slug: string
          status: Database["public"]["Enums"]["help_article_status"]
          title: string
          title_search: unknown
          updated_at: string
          updated_by: string | null
          workspace_id: string
        }
        Insert: {
          author_id?: string | null
          body?: string
          body_text?: string
          collection_id?: string | null
          created_at?: string
          id?: never
          position?: number
          published_at?: string | null
          search?: unknown
          slug?: string
          status?: Database["public"]["Enums"]["help_article_status"]
          title: string
          title_search?: unknown
          updated_at?: string
          updated_by?: string | null
          workspace_id: string
        }
        Update: {
          author_id?: string | null
          body?: string
          body_text?: string
          collection_id?: string | null
          created_at?: string
          id?: never
          position?: number
          published_at?: string | null
          search?: unknown
          slug?: string
          status?: Database["public"]["Enums"]["help_article_status"]
          title?: string
          title_search?: unknown
          updated_at?: string
          updated_by?: string | null
          workspace_id?: string
        }
        Relationships: [
          {
            foreignKeyName: "help_articles_collection_id_workspace_id_fkey"
            columns: ["collection_id", "workspace_id"]
            isOneToOne: false
            referencedRelation: "help_collections"
            referencedColumns: ["id", "workspace_id"]
          },
          {
            foreignKeyName: "help_articles_workspace_id_fkey"
            columns: ["workspace_id"]
            isOneToOne: false
            referencedRelation: "workspaces"
            referencedColumns: ["id"]
          },
        ]
      }
      help_collections: {
        Row: {
          created_at: string
          description: string
          id: string
          position: number
          slug: string
          title: string
          workspace_id: string
        }
        Insert: {
          created_at?: string
          description?: string
          id?: string
          position?: number
          slug?: string
          title: string
          workspace_id: string
        }
        Update: {
          created_at?: string
          description?: string
          id?: string
          position?: number
          slug?: string
          title?: string
          workspace_id?: string
        }
        Relationships: [
          {
            foreignKeyName: "help_collections_workspace_id_fkey"
            columns: ["workspace_id"]
            isOneToOne: false
            referencedRelation: "workspaces"
            referencedColumns: ["id"]
          },
        ]
      }
      help_search_misses: {
        Row: {
          day: string
          query: string
          searches: number
          workspace_id: string
        }
        Insert: {
          day: string
          query: string
          searches?: number
          workspace_id: string
        }
        Update: {
          day?: string
          query?: string
          searches?: number
          workspace_id?: string
        }
        Relationships: [
          {
            foreignKeyName: "help_search_misses_workspace_id_fkey"
            columns: ["workspace_id"]
            isOneToOne: false
            referencedRelation: "workspaces"
            referencedColumns: ["id"]
          },
        ]
      }
      help_settings: {
        Row: {
          language: string
          workspace_id: string
        }
        Insert: {
          language?: string
          workspace_id: string
        }
        Update: {
          language?: string
          workspace_id?: string
        }
        Relationships: [
          {
            foreignKeyName: "help_settings_workspace_id_fkey"
            columns: ["workspace_id"]
            isOneToOne: true
            referencedRelation: "workspaces"
            referencedColumns: ["id"]
          },
        ]
      }
      help_suggestion_events: {
        Row: {
          article_id: number | null
          created_at: string
          id: number
          kind: string
          user_id: string
          workspace_id: string
        }
        Insert: {
          article_id?: number | null
          created_at?: string
          id?: never
          kind: string
          user_id: string
          workspace_id: string
        }
        Update: {
          article_id?: number | null
          created_at?: string
          id?: never
          kind?: string
          user_id?: string
          workspace_id?: string
        }
        Relationships: [
          {
            foreignKeyName: "help_suggestion_events_article_id_fkey"
            columns: ["article_id"]
            isOneToOne: false
            referencedRelation: "help_articles"
            referencedColumns: ["id"]
          },
          {
            foreignKeyName: "help_suggestion_events_workspace_id_fkey"
            columns: ["workspace_id"]
            isOneToOne: false
            referencedRelation: "workspaces"
            referencedColumns: ["id"]
          },
        ]
      }
      holidays: {
        Row: {
          created_at: string
          day: string
          name: string
          workspace_id: string
        }
        Insert: {
          created_at?: string
          day: string
          name: string
          workspace_id: string
        }
        Update: {
          created_at?: string
          day?: string
          name?: string
          workspace_id?: string
        }
        Relationships: [
          {
            foreignKeyName: "holidays_workspace_id_fkey"
            columns: ["workspace_id"]
            isOneToOne: false
            referencedRelation: "workspaces"
            referencedColumns: ["id"]
          },
        ]
      }
      inbound_emails: {
        Row: {
          created_at: string
          created_message_id: string | null
          message_id: string | null
          outcome: string
          provider_message_id: string
          ticket_id: string | null
        }
        Insert: {
          created_at?: string
          created_message_id?: string | null
          message_id?: string | null
          outcome: string
          provider_message_id: string
          ticket_id?: string | null
        }
        Update: {
          created_at?: string
          created_message_id?: string | null
          message_id?: string | null
          outcome?: string
          provider_message_id?: string
          ticket_id?: string | null
        }
        Relationships: [
          {
            foreignKeyName: "inbound_emails_created_message_id_fkey"
            columns: ["created_message_id"]
            isOneToOne: false
            referencedRelation: "messages"
            referencedColumns: ["id"]
          },
          {
            foreignKeyName: "inbound_emails_ticket_id_fkey"
            columns: ["ticket_id"]
            isOneToOne: false
            referencedRelation: "tickets"
            referencedColumns: ["id"]
          },
        ]
      }
      invitation_sends: {
        Row: {
          created_at: string
          email: string
          id: number
          workspace_id: string
        }
        Insert: {
          created_at?: string
          email: string
          id?: never
          workspace_id: string
        }
        Update: {
          created_at?: string
          email?: string
          id?: never
          workspace_id?: string
        }
        Relationships: [
          {
            foreignKeyName: "invitation_sends_workspace_id_fkey"
            columns: ["workspace_id"]
            isOneToOne: false
            referencedRelation: "workspaces"
            referencedColumns: ["id"]
          },
        ]
      }
      invitations: {
        Row: {
          accepted_at: string | null
          created_at: string
          email: string
          expires_at: string
          id: string
          invited_by: string | null
          revoked_at: string | null
          role: Database["public"]["Enums"]["member_role"]
          token_hash: string
          workspace_id: string
        }
        Insert: {
          accepted_at?: string | null
          created_at?: string
          email: string
          expires_at?: string
          id?: string
          invited_by?: string | null
          revoked_at?: string | null
          role?: Database["public"]["Enums"]["member_role"]
          token_hash: string
          workspace_id: string
        }
        Update: {
          accepted_at?: string | null
          created_at?: string
          email?: string
          expires_at?: string
          id?: string
          invited_by?: string | null
          revoked_at?: string | null
          role?: Database["public"]["Enums"]["member_role"]
          token_hash?: string
          workspace_id?: string
        }
        Relationships: [
          {
            foreignKeyName: "invitations_workspace_id_fkey"
            columns: ["workspace_id"]
            isOneToOne: false
            referencedRelation: "workspaces"
            referencedColumns: ["id"]
          },
        ]
      }
      member_availability: {
        Row: {
          available: boolean
          changed_at: string
          user_id: string
          workspace_id: string
        }
        Insert: {
          available: boolean
          changed_at?: string
          user_id: string
          workspace_id: string
        }
        Update: {
          available?: boolean
          changed_at?: string
          user_id?: string
          workspace_id?: string
        }
        Relationships: [
          {
            foreignKeyName: "member_availability_workspace_id_user_id_fkey"
            columns: ["workspace_id", "user_id"]
            isOneToOne: true
            referencedRelation: "memberships"
            referencedColumns: ["workspace_id", "user_id"]
          },
        ]
      }
      memberships: {
        Row: {
          created_at: string
          role: Database["public"]["Enums"]["member_role"]
          user_id: string
          workspace_id: string
        }
        Insert: {
          created_at?: string
          role: Database["public"]["Enums"]["member_role"]
          user_id: string
          workspace_id: string
        }
        Update: {
          created_at?: string
          role?: Database["public"]["Enums"]["member_role"]
          user_id?: string
          workspace_id?: string
        }
        Relationships: [
          {
            foreignKeyName: "memberships_user_profile_fkey"
            columns: ["user_id"]
            isOneToOne: false
            referencedRelation: "profiles"
            referencedColumns: ["user_id"]
          },
          {
            foreignKeyName: "memberships_workspace_id_fkey"
            columns: ["workspace_id"]
            isOneToOne: false
            referencedRelation: "workspaces"
            referencedColumns: ["id"]
          },
        ]
      }
      message_mentions: {
        Row: {
          created_at: string
          message_id: string
          ticket_id: string
          user_id: string
          workspace_id: string
        }
        Insert: {
          created_at?: string
          message_id: string
          ticket_id: string
          user_id: string
          workspace_id: string
        }
        Update: {
          created_at?: string
          message_id?: string
          ticket_id?: string
          user_id?: string
          workspace_id?: string
        }
        Relationships: [
          {
            foreignKeyName: "message_mentions_membership_fkey"
            columns: ["workspace_id", "user_id"]
            isOneToOne: false
            referencedRelation: "memberships"
            referencedColumns: ["workspace_id", "user_id"]
          },
          {
            foreignKeyName: "message_mentions_message_id_fkey"
            columns: ["message_id"]
            isOneToOne: false
            referencedRelation: "messages"
            referencedColumns: ["id"]
          },
        ]
      }
      messages: {
        Row: {
          author_id: string
          body: string
          client_key: string | null
          created_at: string
          id: string
          kind: string
          ticket_id: string
          workspace_id: string
        }
        Insert: {
          author_id?: string
          body: string
          client_key?: string | null
          created_at?: string
          id?: string
          kind?: string
          ticket_id: string
          workspace_id: string
        }
        Update: {
          author_id?: string
          body?: string
          client_key?: string | null
          created_at?: string
          id?: string
          kind?: string
          ticket_id?: string
          workspace_id?: string
        }
        Relationships: [
          {
            foreignKeyName: "messages_author_profile_fkey"
            columns: ["author_id"]
            isOneToOne: false
            referencedRelation: "profiles"
            referencedColumns: ["user_id"]
          },
          {
            foreignKeyName: "messages_ticket_id_fkey"
            columns: ["ticket_id"]
            isOneToOne: false
            referencedRelation: "tickets"
            referencedColumns: ["id"]
          },
          {
            foreignKeyName: "messages_workspace_id_fkey"
            columns: ["workspace_id"]
            isOneToOne: false
            referencedRelation: "workspaces"
            referencedColumns: ["id"]
          },
        ]
      }
      notification_defaults: {
        Row: {
          email: string
          in_app: boolean
          kind: string
          updated_at: string
          updated_by: string | null
          workspace_id: string
        }
        Insert: {
          email: string
          in_app: boolean
          kind: string
          updated_at?: string
          updated_by?: string | null
          workspace_id: string
        }
        Update: {
          email?: string
          in_app?: boolean
          kind?: string
          updated_at?: string
          updated_by?: string | null
          workspace_id?: string
        }
        Relationships: [
          {
            foreignKeyName: "notification_defaults_workspace_id_fkey"
            columns: ["workspace_id"]
            isOneToOne: false
            referencedRelation: "workspaces"
            referencedColumns: ["id"]
          },
        ]
      }
      notification_settings: {
        Row: {
          email: string
          in_app: boolean
          kind: string
          updated_at: string
          user_id: string
          workspace_id: string
        }
        Insert: {
          email: string
          in_app: boolean
          kind: string
          updated_at?: string
          user_id: string
          workspace_id: string
        }
        Update: {
          email?: string
          in_app?: boolean
          kind?: string
          updated_at?: string
          user_id?: string
          workspace_id?: string
        }
        Relationships: [
          {
            foreignKeyName: "notification_settings_membership_fkey"
            columns: ["workspace_id", "user_id"]
            isOneToOne: false
            referencedRelation: "memberships"
            referencedColumns: ["workspace_id", "user_id"]
          },
        ]
      }
      notifications: {
        Row: {
          actor_id: string | null
          created_at: string
          email: string
          emailed_at: string | null
          id: string
          in_app: boolean
          kind: string
          message_id: string | null
          read_at: string | null
          recipient_id: string
          ticket_id: string | null
          workspace_id: string
        }
        Insert: {
          actor_id?: string | null
          created_at?: string
          email: string
          emailed_at?: string | null
          id?: string
          in_app: boolean
          kind: string
          message_id?: string | null
          read_at?: string | null
          recipient_id: string
          ticket_id?: string | null
          workspace_id: string
        }
        Update: {
          actor_id?: string | null
          created_at?: string
          email?: string
          emailed_at?: string | null
          id?: string
          in_app?: boolean
          kind?: string
          message_id?: string | null
          read_at?: string | null
          recipient_id?: string
          ticket_id?: string | null
          workspace_id?: string
        }
        Relationships: [
          {
            foreignKeyName: "notifications_actor_profile_fkey"
            columns: ["actor_id"]
            isOneToOne: false
            referencedRelation: "profiles"
            referencedColumns: ["user_id"]
          },
          {
            foreignKeyName: "notifications_membership_fkey"
            columns: ["workspace_id", "recipient_id"]
            isOneToOne: false
            referencedRelation: "memberships"
            referencedColumns: ["workspace_id", "user_id"]
          },
          {
            foreignKeyName: "notifications_message_id_fkey"
            columns: ["message_id"]
            isOneToOne: false
            referencedRelation: "messages"
            referencedColumns: ["id"]
          },
          {
            foreignKeyName: "notifications_ticket_id_fkey"
            columns: ["ticket_id"]
            isOneToOne: false
            referencedRelation: "tickets"
            referencedColumns: ["id"]
          },
          {
            foreignKeyName: "notifications_workspace_id_fkey"
            columns: ["workspace_id"]
            isOneToOne: false
            referencedRelation: "workspaces"
            referencedColumns: ["id"]
          },
        ]
      }
      profiles: {
        Row: {
          created_at: string
          display_name: string
          user_id: string
        }
        Insert: {
          created_at?: string
          display_name: string
          user_id: string
        }
        Update: {
          created_at?: string
          display_name?: string
          user_id?: string
        }
        Relationships: []
      }
      rule_firings: {
        Row: {
          event_key: string
          fired_at: string
          rule_id: string
          ticket_id: string
          workspace_id: string
        }
        Insert: {
          event_key: string
          fired_at?: string
          rule_id: string
          ticket_id: string
          workspace_id: string
        }
        Update: {
          event_key?: string
          fired_at?: string
          rule_id?: string
          ticket_id?: string
          workspace_id?: string
        }
        Relationships: [
          {
            foreignKeyName: "rule_firings_rule_id_fkey"
            columns: ["rule_id"]
            isOneToOne: false
            referencedRelation: "rules"
            referencedColumns: ["id"]
          },
          {
            foreignKeyName: "rule_firings_ticket_id_fkey"
            columns: ["ticket_id"]
            isOneToOne: false
            referencedRelation: "tickets"
            referencedColumns: ["id"]
          },
          {
            foreignKeyName: "rule_firings_workspace_id_fkey"
            columns: ["workspace_id"]
            isOneToOne: false
            referencedRelation: "workspaces"
            referencedColumns: ["id"]
          },
        ]
      }
      rule_waits: {
        Row: {
          rule_id: string
          since: string
          ticket_id: string
        }
        Insert: {
          rule_id: string
          since: string
          ticket_id: string
        }
        Update: {
          rule_id?: string
          since?: string
          ticket_id?: string
        }
        Relationships: [
          {
            foreignKeyName: "rule_waits_rule_id_fkey"
            columns: ["rule_id"]
            isOneToOne: false
            referencedRelation: "rules"
            referencedColumns: ["id"]
          },
          {
            foreignKeyName: "rule_waits_ticket_id_fkey"
            columns: ["ticket_id"]
            isOneToOne: false
            referencedRelation: "tickets"
            referencedColumns: ["id"]
          },
        ]
      }
      rules: {
        Row: {
          actions: NonNullable<Json>
          conditions: NonNullable<Json>
          created_at: string
          created_by: string | null
          enabled: boolean
          event: string
          id: string
          match_all: boolean
          name: string
          position: number
          updated_at: string | null
          updated_by: string | null
          wait_hours: number | null
          wait_status: Database["public"]["Enums"]["ticket_status"] | null
          workspace_id: string
        }
        Insert: {
          actions: NonNullable<Json>
          conditions?: NonNullable<Json>
          created_at?: string
          created_by?: string | null
          enabled?: boolean
          event: string
          id?: string
          match_all?: boolean
          name: string
          position?: number
          updated_at?: string | null
          updated_by?: string | null
          wait_hours?: number | null
          wait_status?: Database["public"]["Enums"]["ticket_status"] | null
          workspace_id: string
        }
        Update: {
          actions?: NonNullable<Json>
          conditions?: NonNullable<Json>
          created_at?: string
          created_by?: string | null
          enabled?: boolean
          event?: string
          id?: string
          match_all?: boolean
          name?: string
          position?: number
          updated_at?: string | null
          updated_by?: string | null
          wait_hours?: number | null
          wait_status?: Database["public"]["Enums"]["ticket_status"] | null
          workspace_id?: string
        }
        Relationships: [
          {
            foreignKeyName: "rules_workspace_id_fkey"
            columns: ["workspace_id"]
            isOneToOne: false
            referencedRelation: "workspaces"
            referencedColumns: ["id"]
          },
        ]
      }
      saved_views: {
        Row: {
          created_at: string
          filters: NonNullable<Json>
          id: string
          name: string
          owner_id: string
          position: number
          shared: boolean
          workspace_id: string
        }
        Insert: {
          created_at?: string
          filters?: NonNullable<Json>
          id?: string
          name: string
          owner_id?: string
          position?: number
          shared?: boolean
          workspace_id: string
        }
        Update: {
          created_at?: string
          filters?: NonNullable<Json>
          id?: string
          name?: string
          owner_id?: string
          position?: number
          shared?: boolean
          workspace_id?: string
        }
        Relationships: [
          {
            foreignKeyName: "saved_views_owner_fkey"
            columns: ["workspace_id", "owner_id"]
            isOneToOne: false
            referencedRelation: "memberships"
            referencedColumns: ["workspace_id", "user_id"]
          },
          {
            foreignKeyName: "saved_views_workspace_id_fkey"
            columns: ["workspace_id"]
            isOneToOne: false
            referencedRelation: "workspaces"
            referencedColumns: ["id"]
          },
        ]
      }
      signatures: {
        Row: {
          body: string
          user_id: string
        }
        Insert: {
          body: string
          user_id?: string
        }
        Update: {
          body?: string
          user_id?: string
        }
        Relationships: []
      }
      sla_outcomes: {
        Row: {
          assignee_id: string | null
          decided_at: string
          due_at: string
          id: number
          met: boolean
          priority: Database["public"]["Enums"]["ticket_priority"]
          started_at: string
          target: Database["public"]["Enums"]["sla_target"]
          ticket_id: string
          workspace_id: string
        }
        Insert: {
          assignee_id?: string | null
          decided_at?: string
          due_at: string
          id?: never
          met: boolean
          priority: Database["public"]["Enums"]["ticket_priority"]
          started_at: string
          target: Database["public"]["Enums"]["sla_target"]
          ticket_id: string
          workspace_id: string
        }
        Update: {
          assignee_id?: string | null
          decided_at?: string
          due_at?: string
          id?: never
          met?: boolean
          priority?: Database["public"]["Enums"]["ticket_priority"]
          started_at?: string
          target?: Database["public"]["Enums"]["sla_target"]
          ticket_id?: string
          workspace_id?: string
        }
        Relationships: [
          {
            foreignKeyName: "sla_outcomes_ticket_id_fkey"
            columns: ["ticket_id"]
            isOneToOne: false
            referencedRelation: "tickets"
            referencedColumns: ["id"]
          },
          {
            foreignKeyName: "sla_outcomes_workspace_id_fkey"
            columns: ["workspace_id"]
            isOneToOne: false
            referencedRelation: "workspaces"
            referencedColumns: ["id"]
          },
        ]
      }
      sla_targets: {
        Row: {
          business_hours: boolean
          first_response_minutes: number | null
          next_response_minutes: number | null
          priority: Database["public"]["Enums"]["ticket_priority"]
          resolution_minutes: number | null
          workspace_id: string
        }
        Insert: {
          business_hours?: boolean
          first_response_minutes?: number | null
          next_response_minutes?: number | null
          priority: Database["public"]["Enums"]["ticket_priority"]
          resolution_minutes?: number | null
          workspace_id: string
        }
        Update: {
          business_hours?: boolean
          first_response_minutes?: number | null
          next_response_minutes?: number | null
          priority?: Database["public"]["Enums"]["ticket_priority"]
          resolution_minutes?: number | null
          workspace_id?: string
        }
        Relationships: [
          {
            foreignKeyName: "sla_targets_workspace_id_fkey"
            columns: ["workspace_id"]
            isOneToOne: false
            referencedRelation: "workspaces"
            referencedColumns: ["id"]
          },
        ]
      }
      spam_senders: {
        Row: {
          created_at: string
          created_by: string | null
          user_id: string
          workspace_id: string
        }
        Insert: {
          created_at?: string
          created_by?: string | null
          user_id: string
          workspace_id: string
        }
        Update: {
          created_at?: string
          created_by?: string | null
          user_id?: string
          workspace_id?: string
        }
        Relationships: [
          {
            foreignKeyName: "spam_senders_workspace_id_fkey"
            columns: ["workspace_id"]
            isOneToOne: false
            referencedRelation: "workspaces"
            referencedColumns: ["id"]
          },
        ]
      }
      tags: {
        Row: {
          colour: string
          created_at: string
          created_by: string | null
          id: string
          name: string
          workspace_id: string
        }
        Insert: {
          colour?: string
          created_at?: string
          created_by?: string | null
          id?: string
          name: string
          workspace_id: string
        }
        Update: {
          colour?: string
          created_at?: string
          created_by?: string | null
          id?: string
          name?: string
          workspace_id?: string
        }
        Relationships: [
          {
            foreignKeyName: "tags_workspace_id_fkey"
            columns: ["workspace_id"]
            isOneToOne: false
            referencedRelation: "workspaces"
            referencedColumns: ["id"]
          },
        ]
      }
      ticket_events: {
        Row: {
          actor_id: string | null
          created_at: string
          field: string | null
          from: string | null
          from_ticket: number | null
          id: number
          ticket_id: string
          to: string | null
          type: string
          workspace_id: string
        }
        Insert: {
          actor_id?: string | null
          created_at?: string
          field?: string | null
          from?: string | null
          from_ticket?: number | null
          id?: never
          ticket_id: string
          to?: string | null
          type: string
          workspace_id: string
        }
        Update: {
          actor_id?: string | null
          created_at?: string
          field?: string | null
          from?: string | null
          from_ticket?: number | null
          id?: never
          ticket_id?: string
          to?: string | null
          type?: string
          workspace_id?: string
        }
        Relationships: [
          {
            foreignKeyName: "ticket_events_ticket_id_fkey"
            columns: ["ticket_id"]
            isOneToOne: false
            referencedRelation: "tickets"
            referencedColumns: ["id"]
          },
          {
            foreignKeyName: "ticket_events_workspace_id_fkey"
            columns: ["workspace_id"]
            isOneToOne: false
            referencedRelation: "workspaces"
            referencedColumns: ["id"]
          },
        ]
      }
      ticket_field_values: {
        Row: {
          field_id: string
          ticket_id: string
          updated_at: string
          updated_by: string | null
          value: string
          workspace_id: string
        }
        Insert: {
          field_id: string
          ticket_id: string
          updated_at?: string
          updated_by?: string | null
          value: string
          workspace_id: string
        }
        Update: {
          field_id?: string
          ticket_id?: string
          updated_at?: string
          updated_by?: string | null
          value?: string
          workspace_id?: string
        }
        Relationships: [
          {
            foreignKeyName: "ticket_field_values_field_id_fkey"
            columns: ["field_id"]
            isOneToOne: false
            referencedRelation: "ticket_fields"
            referencedColumns: ["id"]
          },
          {
            foreignKeyName: "ticket_field_values_ticket_id_fkey"
            columns: ["ticket_id"]
            isOneToOne: false
            referencedRelation: "tickets"
            referencedColumns: ["id"]
          },
          {
            foreignKeyName: "ticket_field_values_workspace_id_fkey"
            columns: ["workspace_id"]
            isOneToOne: false
            referencedRelation: "workspaces"
            referencedColumns: ["id"]
          },
        ]
      }
      ticket_fields: {
        Row: {
          created_at: string
          created_by: string | null
          id: string
          internal: boolean
          kind: Database["public"]["Enums"]["ticket_field_kind"]
          label: string
          options: string[]
          position: number
          required_on_solve: boolean
          workspace_id: string
        }
        Insert: {
          created_at?: string
          created_by?: string | null
          id?: string
          internal?: boolean
          kind: Database["public"]["Enums"]["ticket_field_kind"]
          label: string
          options?: string[]
          position?: number
          required_on_solve?: boolean
          workspace_id: string
        }
        Update: {
          created_at?: string
          created_by?: string | null
          id?: string
          internal?: boolean
          kind?: Database["public"]["Enums"]["ticket_field_kind"]
          label?: string
          options?: string[]
          position?: number
          required_on_solve?: boolean
          workspace_id?: string
        }
        Relationships: [
          {
            foreignKeyName: "ticket_fields_workspace_id_fkey"
            columns: ["workspace_id"]
            isOneToOne: false
            referencedRelation: "workspaces"
            referencedColumns: ["id"]
          },
        ]
      }
      ticket_followers: {
        Row: {
          created_at: string
          created_by: string | null
          ticket_id: string
          user_id: string
          workspace_id: string
        }
        Insert: {
          created_at?: string
          created_by?: string | null
          ticket_id: string
          user_id: string
          workspace_id: string
        }
        Update: {
          created_at?: string
          created_by?: string | null
          ticket_id?: string
          user_id?: string
          workspace_id?: string
        }
        Relationships: [
          {
            foreignKeyName: "ticket_followers_ticket_id_fkey"
            columns: ["ticket_id"]
            isOneToOne: false
            referencedRelation: "tickets"
            referencedColumns: ["id"]
          },
          {
            foreignKeyName: "ticket_followers_workspace_id_fkey"
            columns: ["workspace_id"]
            isOneToOne: false
            referencedRelation: "workspaces"
            referencedColumns: ["id"]
          },
        ]
      }
      ticket_forwards: {
        Row: {
          created_at: string
          created_by: string
          id: string
          message_id: string | null
          note: string
          ticket_id: string
          to_address: string
          workspace_id: string
        }
        Insert: {
          created_at?: string
          created_by?: string
          id?: string
          message_id?: string | null
          note?: string
          ticket_id: string
          to_address: string
          workspace_id: string
        }
        Update: {
          created_at?: string
          created_by?: string
          id?: string
          message_id?: string | null
          note?: string
          ticket_id?: string
          to_address?: string
          workspace_id?: string
        }
        Relationships: [
          {
            foreignKeyName: "ticket_forwards_message_id_fkey"
            columns: ["message_id"]
            isOneToOne: false
            referencedRelation: "messages"
            referencedColumns: ["id"]
          },
          {
            foreignKeyName: "ticket_forwards_ticket_id_fkey"
            columns: ["ticket_id"]
            isOneToOne: false
            referencedRelation: "tickets"
            referencedColumns: ["id"]
          },
          {
            foreignKeyName: "ticket_forwards_workspace_id_fkey"
            columns: ["workspace_id"]
            isOneToOne: false
            referencedRelation: "workspaces"
            referencedColumns: ["id"]
          },
        ]
      }
      ticket_sla: {
        Row: {
          breached_at: string | null
          due_at: string | null
          paused_at: string | null
          paused_business_seconds: number
          paused_seconds: number
          started_at: string | null
          target: Database["public"]["Enums"]["sla_target"] | null
          ticket_id: string
          waiting_since: string | null
          warn_at: string | null
          workspace_id: string
        }
        Insert: {
          breached_at?: string | null
          due_at?: string | null
          paused_at?: string | null
          paused_business_seconds?: number
          paused_seconds?: number
          started_at?: string | null
          target?: Database["public"]["Enums"]["sla_target"] | null
          ticket_id: string
          waiting_since?: string | null
          warn_at?: string | null
          workspace_id: string
        }
        Update: {
          breached_at?: string | null
          due_at?: string | null
          paused_at?: string | null
          paused_business_seconds?: number
          paused_seconds?: number
          started_at?: string | null
          target?: Database["public"]["Enums"]["sla_target"] | null
          ticket_id?: string
          waiting_since?: string | null
          warn_at?: string | null
          workspace_id?: string
        }
        Relationships: [
          {
            foreignKeyName: "ticket_sla_ticket_id_fkey"
            columns: ["ticket_id"]
            isOneToOne: true
            referencedRelation: "tickets"
            referencedColumns: ["id"]
          },
          {
            foreignKeyName: "ticket_sla_workspace_id_fkey"
            columns: ["workspace_id"]
            isOneToOne: false
            referencedRelation: "workspaces"
            referencedColumns: ["id"]
          },
        ]
      }
      ticket_tags: {
        Row: {
          created_at: string
          created_by: string | null
          last_message_at: string
          tag_id: string
          ticket_id: string
          workspace_id: string
        }
        Insert: {
          created_at?: string
          created_by?: string | null
          last_message_at: string
          tag_id: string
          ticket_id: string
          workspace_id: string
        }
        Update: {
          created_at?: string
          created_by?: string | null
          last_message_at?: string
          tag_id?: string
          ticket_id?: string
          workspace_id?: string
        }
        Relationships: [
          {
            foreignKeyName: "ticket_tags_tag_id_fkey"
            columns: ["tag_id"]
            isOneToOne: false
            referencedRelation: "tags"
            referencedColumns: ["id"]
          },
          {
            foreignKeyName: "ticket_tags_ticket_id_fkey"
            columns: ["ticket_id"]
            isOneToOne: false
            referencedRelation: "tickets"
            referencedColumns: ["id"]
          },
          {
            foreignKeyName: "ticket_tags_workspace_id_fkey"
            columns: ["workspace_id"]
            isOneToOne: false
            referencedRelation: "workspaces"
            referencedColumns: ["id"]
          },
        ]
      }
      tickets: {
        Row: {
          assignee_id: string | null
          client_key: string | null
          closed_at: string | null
          created_at: string
          first_response_at: string | null
          follow_up_of: string | null
          id: string
          last_message_at: string
          merged_into_id: string | null
          number: number
          priority: Database["public"]["Enums"]["ticket_priority"]
          requester_id: string
          search: unknown
          snoozed_until: string | null
          solved_at: string | null
          spam_at: string | null
          status: Database["public"]["Enums"]["ticket_status"]
          subject: string
          trashed_at: string | null
          updated_at: string
          workspace_id: string
        }
        Insert: {
          assignee_id?: string | null
          client_key?: string | null
          closed_at?: string | null
          created_at?: string
          first_response_at?: string | null
          follow_up_of?: string | null
          id?: string
          last_message_at?: string
          merged_into_id?: string | null
          number: number
          priority?: Database["public"]["Enums"]["ticket_priority"]
          requester_id: string
          search?: unknown
          snoozed_until?: string | null
          solved_at?: string | null
          spam_at?: string | null
          status?: Database["public"]["Enums"]["ticket_status"]
          subject: string
          trashed_at?: string | null
          updated_at?: string
          workspace_id: string
        }
        Update: {
          assignee_id?: string | null
          client_key?: string | null
          closed_at?: string | null
          created_at?: string
          first_response_at?: string | null
          follow_up_of?: string | null
          id?: string
          last_message_at?: string
          merged_into_id?: string | null
          number?: number
          priority?: Database["public"]["Enums"]["ticket_priority"]
          requester_id?: string
          search?: unknown
          snoozed_until?: string | null
          solved_at?: string | null
          spam_at?: string | null
          status?: Database["public"]["Enums"]["ticket_status"]
          subject?: string
          trashed_at?: string | null
          updated_at?: string
          workspace_id?: string
        }
        Relationships: [
          {
            foreignKeyName: "tickets_assignee_profile_fkey"
            columns: ["assignee_id"]
            isOneToOne: false
            referencedRelation: "profiles"
            referencedColumns: ["user_id"]
          },
          {
            foreignKeyName: "tickets_follow_up_of_fkey"
            columns: ["follow_up_of"]
            isOneToOne: false
            referencedRelation: "tickets"
            referencedColumns: ["id"]
          },
          {
            foreignKeyName: "tickets_merged_into_id_fkey"
            columns: ["merged_into_id"]
            isOneToOne: false
            referencedRelation: "tickets"
            referencedColumns: ["id"]
          },
          {
            foreignKeyName: "tickets_requester_profile_fkey"
            columns: ["requester_id"]
            isOneToOne: false
            referencedRelation: "profiles"
            referencedColumns: ["user_id"]
          },
          {
            foreignKeyName: "tickets_workspace_id_fkey"
            columns: ["workspace_id"]
            isOneToOne: false
            referencedRelation: "workspaces"
            referencedColumns: ["id"]
          },
        ]
      }
      user_settings: {
        Row: {
          time_zone: string | null
          user_id: string
        }
        Insert: {
          time_zone?: string | null
          user_id?: string
        }
        Update: {
          time_zone?: string | null
          user_id?: string
        }
        Relationships: []
      }
      workspace_email_settings: {
        Row: {
          accent_color: string
          dkim_selector: string | null
          footer: string | null
          logo_path: string | null
          sender_address: string | null
          sender_name: string | null
          updated_at: string
          updated_by: string | null
          verification_token: string
          verified_at: string | null
          verified_domain: string | null
          workspace_id: string
        }
        Insert: {
          accent_color?: string
          dkim_selector?: string | null
          footer?: string | null
          logo_path?: string | null
          sender_address?: string | null
          sender_name?: string | null
          updated_at?: string
          updated_by?: string | null
          verification_token?: string
          verified_at?: string | null
          verified_domain?: string | null
          workspace_id: string
        }
        Update: {
          accent_color?: string
          dkim_selector?: string | null
          footer?: string | null
          logo_path?: string | null
          sender_address?: string | null
          sender_name?: string | null
          updated_at?: string
          updated_by?: string | null
          verification_token?: string
          verified_at?: string | null
          verified_domain?: string | null
          workspace_id?: string
        }
        Relationships: [
          {
            foreignKeyName: "workspace_email_settings_workspace_id_fkey"
            columns: ["workspace_id"]
            isOneToOne: true
            referencedRelation: "workspaces"
            referencedColumns: ["id"]
          },
        ]
      }
      workspace_slug_history: {
        Row: {
          created_at: string
          slug: string
          workspace_id: string
        }
        Insert: {
          created_at?: string
          slug: string
          workspace_id: string
        }
        Update: {
          created_at?: string
          slug?: string
          workspace_id?: string
        }
        Relationships: [
          {
            foreignKeyName: "workspace_slug_history_workspace_id_fkey"
            columns: ["workspace_id"]
            isOneToOne: false
            referencedRelation: "workspaces"
            referencedColumns: ["id"]
          },
        ]
      }
      workspaces: {
        Row: {
          agents_create_tags: boolean
          cc_adds_followers: boolean
          created_at: string
          created_by: string | null
          id: string
          name: string
          slug: string
          ticket_seq: number
          time_zone: string
        }
        Insert: {
          agents_create_tags?: boolean
          cc_adds_followers?: boolean
          created_at?: string
          created_by?: string | null
          id?: string
          name: string
          slug: string
          ticket_seq?: number
          time_zone?: string
        }
        Update: {
          agents_create_tags?: boolean
          cc_adds_followers?: boolean
          created_at?: string
          created_by?: string | null
          id?: string
          name?: string
          slug?: string
          ticket_seq?: number
          time_zone?: string
        }
        Relationships: []
      }
    }
    Views: {
      [_ in never]: never
    }
    Functions: {
      accept_invitation: {
        Args: { p_token: string }
        Returns: {
          role: Database["public"]["Enums"]["member_role"]
          slug: string
          workspace_id: string
        }[]
      }
      add_ticket_follower: {
        Args: { p_email: string; p_ticket_id: string }
        Returns: string
      }
      add_ticket_tag: {
        Args: { p_name: string; p_ticket_id: string }
        Returns: string
      }
      agent_report: {
        Args: {
          p_days?: number
          p_from?: string
          p_slug: string
          p_to?: string
        }
        Returns: Json
      }
      announce_help_editor: {
        Args: { p_article_id: number; p_presence_ref: string }
        Returns: undefined
      }
      announce_ticket_viewer: {
        Args: { p_presence_ref: string; p_ticket_id: string }
        Returns: undefined
      }
      assignment_members: {
        Args: { p_workspace_id: string }
        Returns: {
          available: boolean
          open: number
          user_id: string
        }[]
      }
      bulk_update_tickets: {
        Args: { p_action: string; p_ticket_ids: string[]; p_value?: string }
        Returns: Json
      }
      claim_email_delivery: {
        Args: { p_message_id: string; p_recipient: string; p_ticket_id: string }
        Returns: boolean
      }
      claim_next_ticket: {
        Args: { p_workspace_id: string }
        Returns: {
          assignee_id: string | null
          client_key: string | null
          closed_at: string | null
          created_at: string
          first_response_at: string | null
          follow_up_of: string | null
          id: string
          last_message_at: string
          merged_into_id: string | null
          number: number
          priority: Database["public"]["Enums"]["ticket_priority"]
          requester_id: string
          search: unknown
          snoozed_until: string | null
          solved_at: string | null
          spam_at: string | null
          status: Database["public"]["Enums"]["ticket_status"]
          subject: string
          trashed_at: string | null
          updated_at: string
          workspace_id: string
        }[]
        SetofOptions: {
          from: "*"
          to: "tickets"
          isOneToOne: false
          isSetofReturn: true
        }
      }
      claim_notification_emails: {
        Args: { p_domain: string; p_limit?: number }
        Returns: Json
      }
      close_solved_tickets: {
        Args: Record<PropertyKey, never>
        Returns: number
      }
      companies_page: {
        Args: {
          p_after?: string
          p_limit?: number
          p_query?: string
          p_slug: string
        }
        Returns: Json
      }
      company_page: {
        Args: {
          p_after_at?: string
          p_after_id?: string
          p_domain: string
          p_slug: string
        }
        Returns: Json
      }
      count_help_view: { Args: { p_article_id: number }; Returns: undefined }
      count_help_views: {
        Args: { p_article_ids: number[]; p_views: number[] }
        Returns: undefined
      }
      create_email_sign_in_link: {
        Args: { p_next: string; p_token_hash: string; p_user_id: string }
        Returns: string
      }
      create_ticket: {
        Args: {
          p_attachments?: Json
          p_body: string
          p_client_key?: string
          p_subject: string
          p_ticket_id?: string
          p_workspace_slug: string
        }
        Returns: {
          id: string
          number: number
        }[]
      }
      create_workspace: {
        Args: { p_name: string; p_slug: string }
        Returns: {
          agents_create_tags: boolean
          cc_adds_followers: boolean
          created_at: string
          created_by: string | null
          id: string
          name: string
          slug: string
          ticket_seq: number
          time_zone: string
        }
        SetofOptions: {
          from: "*"
          to: "workspaces"
          isOneToOne: true
          isSetofReturn: false
        }
      }
      csat_report: {
        Args: {
          p_days?: number
          p_from?: string
          p_slug: string
          p_to?: string
        }
        Returns: Json
      }
      customer_page: {
        Args: {
          p_after_at?: string
          p_after_id?: string
          p_customer_id: string
          p_slug: string
        }
        Returns: Json
      }
      customers_page: {
        Args: {
          p_after_id?: string
          p_after_name?: string
          p_company?: string
          p_limit?: number
          p_query?: string
          p_slug: string
        }
        Returns: Json
      }
      empty_trash: { Args: { p_workspace_id: string }; Returns: number }
      forward_ticket: {
        Args: {
          p_message_id?: string
          p_note?: string
          p_ticket_id: string
          p_to: string
        }
        Returns: string
      }
      help_article: {
        Args: { p_count_view?: boolean; p_id: number; p_slug: string }
        Returns: Json
      }
      help_article_list: {
        Args: {
          p_collection?: string
          p_limit?: number
          p_offset?: number
          p_slug: string
          p_status?: Database["public"]["Enums"]["help_article_status"]
        }
        Returns: Json
      }
      help_center: { Args: { p_slug: string }; Returns: Json }
      help_collection: {
        Args: { p_collection: string; p_slug: string }
        Returns: Json
      }
      help_popular_articles: {
        Args: { p_workspace_id: string }
        Returns: number[]
      }
      help_renamed_collection: {
        Args: { p_slug: string; p_workspace_id: string }
        Returns: string
      }
      help_report: {
        Args: {
          p_days?: number
          p_from?: string
          p_slug: string
          p_to?: string
        }
        Returns: Json
      }
      help_search: {
        Args: {
          p_limit?: number
          p_published_only?: boolean
          p_query: string
          p_slug: string
        }
        Returns: Json
      }
      help_sitemap: { Args: { p_slug: string }; Returns: Json }
      help_sitemap_workspaces: {
        Args: Record<PropertyKey, never>
        Returns: string[]
      }
      help_spelling: {
        Args: { p_query: string; p_workspace_id: string }
        Returns: string
      }
      help_versions: { Args: { p_slugs: string[] }; Returns: Json }
      help_vote: {
        Args: { p_article_id: number; p_helpful: boolean; p_visitor: string }
        Returns: undefined
      }
      inbox: {
        Args: {
          p_after_at?: string
          p_after_id?: string
          p_assignee?: string
          p_before_at?: string
          p_before_id?: string
          p_fields?: Json
          p_limit?: number
          p_priority?: string
          p_query?: string
          p_slug: string
          p_sort?: string
          p_status?: string
          p_tags?: string[]
          p_view?: string
        }
        Returns: Json
      }
      invitation_preview: {
        Args: { p_token: string }
        Returns: {
          email: string
          inviter_name: string
          problem: string
          role: Database["public"]["Enums"]["member_role"]
          workspace_name: string
        }[]
      }
      merge_tags: { Args: { p_from: string; p_into: string }; Returns: number }
      merge_tickets: {
        Args: { p_into: string; p_ticket_id: string }
        Returns: Json
      }
      move_inbox_view: {
        Args: { p_id: string; p_up: boolean }
        Returns: undefined
      }
      move_rule: {
        Args: { p_rule_id: string; p_up: boolean }
        Returns: undefined
      }
      move_tickets: {
        Args: { p_action: string; p_ticket_ids: string[] }
        Returns: Json
      }
      next_opening: {
        Args: { p_at?: string; p_workspace_id: string }
        Returns: string
      }
      notification_email: {
        Args: { p_message_id: string; p_notification_id: string }
        Returns: Json
      }
      notification_emailed: {
        Args: {
          p_message_id: string
          p_notification_id: string
          p_recipient: string
        }
        Returns: undefined
      }
      notification_emails_sent: {
        Args: {
          p_message_ids: string[]
          p_notification_ids: string[]
          p_recipients: string[]
        }
        Returns: undefined
      }
      notification_preferences: {
        Args: { p_workspace_id: string }
        Returns: {
          email: string
          in_app: boolean
          kind: string
          own: boolean
          team_email: string
          team_in_app: boolean
        }[]
      }
      portal_workspace: {
        Args: { p_slug: string }
        Returns: {
          id: string
          name: string
          slug: string
        }[]
      }
      post_message: {
        Args: {
          p_attachments?: Json
          p_body: string
          p_client_key?: string
          p_kind?: string
          p_last_seen_message_id?: string
          p_new_status?: Database["public"]["Enums"]["ticket_status"]
          p_ticket_id: string
        }
        Returns: {
          author_id: string
          body: string
          client_key: string | null
          created_at: string
          id: string
          kind: string
          ticket_id: string
          workspace_id: string
        }
        SetofOptions: {
          from: "*"
          to: "messages"
          isOneToOne: true
          isSetofReturn: false
        }
      }
      rate_ticket: {
        Args: {
          p_comment?: string
          p_number: number
          p_rating?: Database["public"]["Enums"]["csat_rating"]
          p_slug: string
          p_token: string
        }
        Returns: Json
      }
      receive_email: {
        Args: {
          p_attachments?: Json
          p_body: string
          p_cc?: string[]
          p_from: string
          p_message_id: string
          p_provider_message_id: string
          p_recipient_id?: string
          p_sender_verified?: boolean
          p_subject: string
          p_subject_rest?: string
          p_ticket_id: string
          p_workspace_slug: string
        }
        Returns: Json
      }
      receive_forward_reply: {
        Args: {
          p_attachments?: Json
          p_body: string
          p_forward_id: string
          p_from: string
          p_message_id: string
          p_provider_message_id: string
          p_sender_verified?: boolean
        }
        Returns: Json
      }
      record_help_search_miss: {
        Args: { p_query: string; p_slug: string }
        Returns: undefined
      }
      record_help_search_misses: {
        Args: { p_queries: string[]; p_searches: number[]; p_slug: string }
        Returns: undefined
      }
      record_help_suggestion: {
        Args: { p_article_id?: number; p_kind: string; p_slug: string }
        Returns: undefined
      }
      record_sla_breaches: { Args: Record<PropertyKey, never>; Returns: number }
      remove_member: {
        Args: {
          p_reassign_to?: string
          p_user_id: string
          p_workspace_id: string
        }
        Returns: number
      }
      remove_ticket_follower: {
        Args: { p_ticket_id: string; p_user_id: string }
        Returns: undefined
      }
      rename_inbox_view: {
        Args: { p_id: string; p_name: string }
        Returns: undefined
      }
      requester_card: { Args: { p_ticket_id: string }; Returns: Json }
      rule_preview: {
        Args: {
          p_conditions: Json
          p_event: string
          p_match_all: boolean
          p_wait_hours?: number
          p_wait_status?: Database["public"]["Enums"]["ticket_status"]
          p_workspace_id: string
        }
        Returns: {
          id: string
          last_message_at: string
          number: number
          status: Database["public"]["Enums"]["ticket_status"]
          subject: string
        }[]
      }
      run_waiting_rules: { Args: Record<PropertyKey, never>; Returns: number }
      save_after_hours_reply: {
        Args: { p_canned_reply_id?: string; p_workspace_id: string }
        Returns: undefined
      }
      save_assignment_settings: {
        Args: {
          p_max_open?: number
          p_mode: Database["public"]["Enums"]["assignment_mode"]
          p_workspace_id: string
        }
        Returns: undefined
      }
      save_business_hours: {
        Args: { p_periods: Json; p_workspace_id: string }
        Returns: undefined
      }
      save_csat_settings: {
        Args: { p_enabled: boolean; p_question: string; p_workspace_id: string }
        Returns: undefined
      }
      save_inbox_view: {
        Args: {
          p_filters: Json
          p_name: string
          p_shared: boolean
          p_workspace_id: string
        }
        Returns: string
      }
      save_notification_settings: {
        Args: { p_settings: Json; p_team?: boolean; p_workspace_id: string }
        Returns: undefined
      }
      save_sla_targets: {
        Args: { p_targets: Json; p_workspace_id: string }
        Returns: undefined
      }
      search_tickets: {
        Args: { p_query: string; p_workspace_id: string }
        Returns: {
          assignee_id: string | null
          client_key: string | null
          closed_at: string | null
          created_at: string
          first_response_at: string | null
          follow_up_of: string | null
          id: string
          last_message_at: string
          merged_into_id: string | null
          number: number
          priority: Database["public"]["Enums"]["ticket_priority"]
          requester_id: string
          search: unknown
          snoozed_until: string | null
          solved_at: string | null
          spam_at: string | null
          status: Database["public"]["Enums"]["ticket_status"]
          subject: string
          trashed_at: string | null
          updated_at: string
          workspace_id: string
        }[]
        SetofOptions: {
          from: "*"
          to: "tickets"
          isOneToOne: false
          isSetofReturn: true
        }
      }
      set_availability: {
        Args: { p_available: boolean; p_workspace_id: string }
        Returns: undefined
      }
      set_ticket_fields: {
        Args: { p_ticket_id: string; p_values: Json }
        Returns: undefined
      }
      signal_ticket_typing: {
        Args: { p_kind: string; p_ticket_id: string }
        Returns: undefined
      }
      sla_report: {
        Args: {
          p_days?: number
          p_from?: string
          p_slug: string
          p_to?: string
        }
        Returns: Json
      }
      snooze_ticket: {
        Args: { p_at?: string; p_preset?: string; p_ticket_id: string }
        Returns: string
      }
      split_message: {
        Args: { p_message_id: string; p_ticket_id: string }
        Returns: Json
      }
      start_conversation: {
        Args: {
          p_attachments?: Json
          p_body: string
          p_client_key?: string
          p_requester_email: string
          p_subject: string
          p_ticket_id?: string
          p_workspace_id: string
        }
        Returns: {
          id: string
          number: number
        }[]
      }
      survey_token: { Args: { p_survey_id: string }; Returns: string }
      tag_report: {
        Args: {
          p_days?: number
          p_from?: string
          p_slug: string
          p_to?: string
        }
        Returns: Json
      }
      thread_customers: { Args: { p_ticket_id: string }; Returns: string[] }
      ticket_field_list: {
        Args: { p_number: number; p_slug: string }
        Returns: Json
      }
      ticket_field_values_of: {
        Args: { p_ticket_ids: string[] }
        Returns: {
          field_id: string
          ticket_id: string
          value: string
        }[]
      }
      ticket_follower_list: {
        Args: { p_number: number; p_slug: string }
        Returns: {
          created_at: string
          email: string
          name: string
          user_id: string
        }[]
      }
      ticket_page: {
        Args: {
          p_earlier_at?: string
          p_earlier_id?: string
          p_number: number
          p_page?: number
          p_slug: string
        }
        Returns: Json
      }
      unclaimed_help_images: { Args: { p_limit?: number }; Returns: string[] }
      unread_notifications: {
        Args: Record<PropertyKey, never>
        Returns: number
      }
      unrecorded_attachment_objects: {
        Args: { p_limit?: number }
        Returns: string[]
      }
      use_email_sign_in_link: {
        Args: { p_token: string }
        Returns: {
          email: string
          next: string
        }[]
      }
      viewer_state: { Args: Record<PropertyKey, never>; Returns: Json }
      workspace_report: {
        Args: {
          p_days?: number
          p_from?: string
          p_slug: string
          p_to?: string
        }
        Returns: Json
      }
      workspace_slug_redirect: { Args: { p_slug: string }; Returns: string }
      workspace_tags: { Args: { p_slug: string }; Returns: Json }
    }
    Enums: {
      assignment_mode: "off" | "round_robin" | "least_open"
      csat_rating: "good" | "okay" | "bad"
      help_article_status: "draft" | "published"
      member_role: "admin" | "agent"
      sla_target: "first_response" | "next_response" | "resolution"
      ticket_field_kind: "text" | "number" | "date" | "dropdown" | "checkbox"
      ticket_priority: "low" | "normal" | "high" | "urgent"
      ticket_status: "new" | "open" | "pending" | "solved" | "closed"
    }
    CompositeTypes: {
      [_ in never]: never
    }
  }
}

type DatabaseWithoutInternals = Omit<Database, "__InternalSupabase">

type DefaultSchema = DatabaseWithoutInternals[Extract<keyof Database, "public">]

export type Tables<
  DefaultSchemaTableNameOrOptions extends
    | keyof (DefaultSchema["Tables"] & DefaultSchema["Views"])
    | { schema: keyof DatabaseWithoutInternals },
  TableName extends (DefaultSchemaTableNameOrOptions extends {
    schema: keyof DatabaseWithoutInternals
  }
    ? keyof (DatabaseWithoutInternals[DefaultSchemaTableNameOrOptions["schema"]]["Tables"] &
        DatabaseWithoutInternals[DefaultSchemaTableNameOrOptions["schema"]]["Views"])
    : never) = never,
> = DefaultSchemaTableNameOrOptions extends {
  schema: keyof DatabaseWithoutInternals
}
  ? (DatabaseWithoutInternals[DefaultSchemaTableNameOrOptions["schema"]]["Tables"] &
      DatabaseWithoutInternals[DefaultSchemaTableNameOrOptions["schema"]]["Views"])[TableName] extends {
      Row: infer R
    }
    ? R
    : never
  : DefaultSchemaTableNameOrOptions extends keyof (DefaultSchema["Tables"] &
        DefaultSchema["Views"])
    ? (DefaultSchema["Tables"] &
        DefaultSchema["Views"])[DefaultSchemaTableNameOrOptions] extends {
        Row: infer R
      }
      ? R
      : never
    : never

export type TablesInsert<
  DefaultSchemaTableNameOrOptions extends
    | keyof DefaultSchema["Tables"]
    | { schema: keyof DatabaseWithoutInternals },
  TableName extends (DefaultSchemaTableNameOrOptions extends {
    schema: keyof DatabaseWithoutInternals
  }
    ? keyof DatabaseWithoutInternals[DefaultSchemaTableNameOrOptions["schema"]]["Tables"]
    : never) = never,
> = DefaultSchemaTableNameOrOptions extends {
  schema: keyof DatabaseWithoutInternals
}
  ? DatabaseWithoutInternals[DefaultSchemaTableNameOrOptions["schema"]]["Tables"][TableName] extends {
      Insert: infer I
    }
    ? I
    : never
  : DefaultSchemaTableNameOrOptions extends keyof DefaultSchema["Tables"]
    ? DefaultSchema["Tables"][DefaultSchemaTableNameOrOptions] extends {
        Insert: infer I
      }
      ? I
      : never
    : never

export type TablesUpdate<
  DefaultSchemaTableNameOrOptions extends
    | keyof DefaultSchema["Tables"]
    | { schema: keyof DatabaseWithoutInternals },
  TableName extends (DefaultSchemaTableNameOrOptions extends {
    schema: keyof DatabaseWithoutInternals
  }
    ? keyof DatabaseWithoutInternals[DefaultSchemaTableNameOrOptions["schema"]]["Tables"]
    : never) = never,
> = DefaultSchemaTableNameOrOptions extends {
  schema: keyof DatabaseWithoutInternals
}
  ? DatabaseWithoutInternals[DefaultSchemaTableNameOrOptions["schema"]]["Tables"][TableName] extends {
      Update: infer U
    }
    ? U
    : never
  : DefaultSchemaTableNameOrOptions extends keyof DefaultSchema["Tables"]
    ? DefaultSchema["Tables"][DefaultSchemaTableNameOrOptions] extends {
        Update: infer U
      }
      ? U
      : never
    : never

export type Enums<
  DefaultSchemaEnumNameOrOptions extends
    | keyof DefaultSchema["Enums"]
    | { schema: keyof DatabaseWithoutInternals },
  EnumName extends (DefaultSchemaEnumNameOrOptions extends {
    schema: keyof DatabaseWithoutInternals
  }
    ? keyof DatabaseWithoutInternals[DefaultSchemaEnumNameOrOptions["schema"]]["Enums"]
    : never) = never,
> = DefaultSchemaEnumNameOrOptions extends {
  schema: keyof DatabaseWithoutInternals
}
  ? DatabaseWithoutInternals[DefaultSchemaEnumNameOrOptions["schema"]]["Enums"][EnumName]
  : DefaultSchemaEnumNameOrOptions extends keyof DefaultSchema["Enums"]
    ? DefaultSchema["Enums"][DefaultSchemaEnumNameOrOptions]
    : never

export type CompositeTypes<
  PublicCompositeTypeNameOrOptions extends
    | keyof DefaultSchema["CompositeTypes"]
    | { schema: keyof DatabaseWithoutInternals },
  CompositeTypeName extends (PublicCompositeTypeNameOrOptions extends {
    schema: keyof DatabaseWithoutInternals
  }
    ? keyof DatabaseWithoutInternals[PublicCompositeTypeNameOrOptions["schema"]]["CompositeTypes"]
    : never) = never,
> = PublicCompositeTypeNameOrOptions extends {
  schema: keyof DatabaseWithoutInternals
}
  ? DatabaseWithoutInternals[PublicCompositeTypeNameOrOptions["schema"]]["CompositeTypes"][CompositeTypeName]
  : PublicCompositeTypeNameOrOptions extends keyof DefaultSchema["CompositeTypes"]
    ? DefaultSchema["CompositeTypes"][PublicCompositeTypeNameOrOptions]
    : never

export const Constants = {
  public: {
    Enums: {
      assignment_mode: ["off", "round_robin", "least_open"],
      csat_rating: ["good", "okay", "bad"],
      help_article_status: ["draft", "published"],
      member_role: ["admin", "agent"],
      sla_target: ["first_response", "next_response", "resolution"],
      ticket_field_kind: ["text", "number", "date", "dropdown", "checkbox"],
      ticket_priority: ["low", "normal", "high", "urgent"],
      ticket_status: ["new", "open", "pending", "solved", "closed"],
    },
  },
} as const
